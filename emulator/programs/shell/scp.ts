import { bytesFromArray, bytesToArray } from '../../resp/bytes.js';
import { STRERROR } from '../../sim/disk-errors.js';
import type { SimEvent } from '../../sim/kernel.js';
import type { NetError, Socket } from '../../sim/network.js';
import { resolveHost } from './addresses.js';
import type { Command, CommandContext, Job } from './context.js';
import { errnoText } from './errors.js';
import { FrameReader, frame, hello, holdSshd, remotePath, SSH_PORT, watchDelivery, type MessageType } from './file-transfer.js';
import { baseName, cp, join } from './files.js';
import { getopt } from './options.js';
import { ProgressMeter } from './progress-meter.js';

/**
 * scp from OpenSSH 9.2 (SFTP mode, the default since 9.0): copies files
 * between hosts' disks through real simulated connections to port 22, so
 * a copy takes the link's bandwidth and latency, stalls in a partition and
 * fails against a dead host. Remote-to-remote copies go through the local
 * host, as they do by default since 8.7. A copy between two local paths is
 * cp's. Progress is drawn on a terminal as scp draws it.
 */
export const scp: Command = (ctx, args) => {
  const opts = getopt('scp', args, { flags: '346ABCOpqRrsTv', withValue: 'cDFiJloPSX' });
  if ('error' in opts) {
    ctx.err(opts.error.replace(/Try 'scp --help'.*\n/, '') + USAGE);
    return 255;
  }
  const ops = opts.operands;
  if (ops.length < 2) {
    ctx.err(USAGE);
    return 255;
  }
  const specs = ops.map(parseSpec);
  const target = specs[specs.length - 1]!;
  const sources = specs.slice(0, -1);
  if (specs.every((s) => s.host === null)) return cp(ctx, ops);
  const showProgress = ctx.isTerminal && !opts.flags.has('q');

  let index = 0;
  let status = 0;
  let current: Transfer | null = null;
  const job = ctx.foreground('scp', ['scp', ...args], {
    onInterrupt: () => {
      current?.abort();
      job.finish(130);
    },
    onKilled: () => current?.abort(),
  });
  const next = (ok: boolean): void => {
    if (!ok) status = 1;
    current = null;
    if (!job.running) return;
    if (index >= sources.length) {
      job.finish(status);
      return;
    }
    const src = sources[index++]!;
    if (src.host === null && target.host === null) {
      next(cp(ctx, [src.path, target.path]) === 0);
      return;
    }
    current = new Transfer(ctx, job, src, target, showProgress, next);
    current.start();
  };
  next(true);
  return 'job';
};

const USAGE =
  'usage: scp [-346ABCOpqRrsTv] [-c cipher] [-D sftp_server_path] [-F ssh_config]\n' +
  '           [-i identity_file] [-J destination] [-l limit] [-o ssh_option]\n' +
  '           [-P port] [-S program] [-X sftp_option] source ... target\n';

interface Spec {
  /** The host as typed, or null for a local path. */
  readonly host: string | null;
  readonly path: string;
}

/** host:path or user@host:path is remote; a colon after a slash (or first) is part of a local name. */
function parseSpec(arg: string): Spec {
  const colon = arg.indexOf(':');
  const slash = arg.indexOf('/');
  if (colon <= 0 || (slash >= 0 && slash < colon)) return { host: null, path: arg };
  const hostPart = arg.slice(0, colon);
  const at = hostPart.lastIndexOf('@');
  return { host: at >= 0 ? hostPart.slice(at + 1) : hostPart, path: arg.slice(colon + 1) };
}

/** sftp's status texts (fx2txt) for the errors a server maps from errno. */
function fx2txt(code: string): string {
  if (code === 'ENOENT') return 'No such file';
  if (code === 'EACCES' || code === 'EPERM') return 'Permission denied';
  return 'Failure';
}

/** ssh's and scp's log lines end with CR LF. */
function logLine(ctx: CommandContext, text: string): void {
  ctx.err(text + '\r\n');
}

/** One SSH connection: TCP to port 22, two handshake exchanges, then framed messages. */
class SshConnection {
  readonly socket: Socket;
  private ready = false;
  private closedByUs = false;
  private release: (() => void) | null;
  onMessage: (type: MessageType, payload: string) => void = () => {};
  /** Raw bytes received so far (the progress of a download). */
  received = 0;
  onBytes: (() => void) | null = null;
  /** Every chunk as it arrives, before parsing (a relay passes them on). */
  onRaw: ((data: Uint8Array) => void) | null = null;

  constructor(
    ctx: CommandContext,
    job: Job,
    readonly shownHost: string,
    hostName: string,
    onReady: () => void,
    onLost: (message: string) => void,
  ) {
    const world = ctx.world;
    this.release = holdSshd(world.host(hostName));
    this.socket = world.network.connect(ctx.host, hostName, SSH_PORT);
    job.process.sockets.add(this.socket);
    let hellos = 0;
    const reader = new FrameReader((type, payload) => {
      if (!this.ready) {
        if (type !== 'H') return;
        if (++hellos === 2) {
          this.ready = true;
          onReady();
        } else {
          this.socket.write(hello());
        }
        return;
      }
      this.onMessage(type, payload);
    });
    this.socket.onConnect = () => void this.socket.write(hello());
    this.socket.onData = (data) => {
      this.received += data.length;
      this.onBytes?.();
      reader.feed(data);
      this.onRaw?.(data);
    };
    this.socket.onClose = (error: NetError | null) => {
      this.drop();
      if (this.closedByUs) return;
      if (!this.ready && error !== null) onLost(`ssh: connect to host ${shownHost} port ${SSH_PORT}: ${error.message}`);
      else onLost(`Connection to ${shownHost} closed by remote host.`);
    };
  }

  send(type: MessageType, payload: string): void {
    this.socket.write(frame(type, payload));
  }

  close(): void {
    this.closedByUs = true;
    this.socket.end();
    this.drop();
  }

  abort(): void {
    this.closedByUs = true;
    this.socket.destroy();
    this.drop();
  }

  private drop(): void {
    this.release?.();
    this.release = null;
  }
}

/** One file from a source to the target, over one or two connections. */
class Transfer {
  private conns: SshConnection[] = [];
  private meter: ProgressMeter | null = null;
  private meterTimer: SimEvent | null = null;
  private counter = 0;
  private done = false;
  private localBytes: Uint8Array | null = null;
  private localTarget: string | null = null;
  private remoteSize = 0;

  constructor(
    private readonly ctx: CommandContext,
    private readonly job: Job,
    private readonly src: Spec,
    private readonly target: Spec,
    private readonly showProgress: boolean,
    private readonly next: (ok: boolean) => void,
  ) {}

  start(): void {
    const { ctx, src, target } = this;
    if (src.host === null) {
      // An upload reads its source first.
      const path = ctx.resolve(src.path);
      try {
        if (ctx.host.disk.stat(path).isDirectory) {
          logLine(ctx, `scp: ${src.path} is not a regular file`);
          logLine(ctx, `scp: failed to upload file ${src.path} to ${target.path}`);
          this.end(false);
          return;
        }
        this.localBytes = ctx.host.disk.readFile(path);
      } catch (e) {
        logLine(ctx, `scp: stat local "${src.path}": ${errnoText(e)}`);
        this.end(false);
        return;
      }
    }
    const hosts = [src.host, target.host].filter((h): h is string => h !== null);
    const resolved: string[] = [];
    for (const h of hosts) {
      const r = resolveHost(ctx.world, ctx.host.name, h);
      if (r === null) {
        logLine(ctx, `ssh: Could not resolve hostname ${h}: Name or service not known`);
        logLine(ctx, 'scp: Connection closed');
        this.end(false);
        return;
      }
      resolved.push(r.host);
    }
    let ready = 0;
    for (let i = 0; i < hosts.length; i++) {
      const conn = new SshConnection(
        ctx,
        this.job,
        hosts[i]!,
        resolved[i]!,
        () => {
          if (++ready === hosts.length) this.begin();
        },
        (message) => {
          if (this.done) return;
          logLine(ctx, message);
          logLine(ctx, 'scp: Connection closed');
          this.end(false);
        },
      );
      this.conns.push(conn);
    }
  }

  /** Every connection is up: ask for the file, or announce it. */
  private begin(): void {
    const { src, target } = this;
    const reader = src.host !== null ? this.conns[0]! : null;
    const writer = target.host !== null ? this.conns[this.conns.length - 1]! : null;
    if (reader === null) {
      this.upload(writer!, this.localBytes!);
      return;
    }
    reader.onMessage = (type, payload) => {
      if (type === 'S') {
        if (!payload.startsWith('ok ')) {
          const code = payload.split(' ')[0]!;
          if (code === 'EISDIR') logLine(this.ctx, `scp: download ${remotePath(src.path)}: not a regular file`);
          else logLine(this.ctx, `scp: ${src.path}: ${STRERROR[code as keyof typeof STRERROR] ?? 'Failure'}`);
          this.end(false);
          return;
        }
        this.remoteSize = Number(payload.slice(3));
        if (writer === null) this.openLocal();
        else this.relayTo(writer);
      } else if (writer === null && type === 'D') {
        this.receiveData(payload);
      } else if (writer === null && type === 'E') {
        this.complete(true);
      }
    };
    reader.send('R', src.path);
  }

  /** Download to this host: the local file is opened once the remote one is known. */
  private openLocal(): void {
    const { ctx } = this;
    const dest = ctx.resolve(this.target.path);
    let path = dest;
    try {
      if (ctx.host.disk.exists(dest) && ctx.host.disk.stat(dest).isDirectory) path = join(dest, baseName(this.src.path));
      ctx.host.disk.writeFile(path, new Uint8Array(0));
    } catch (e) {
      logLine(ctx, `scp: open local "${path}": ${errnoText(e)}`);
      this.end(false);
      return;
    }
    this.localTarget = path;
    const reader = this.conns[0]!;
    // What arrives before the data: the status message and the data frame's header.
    const base = reader.received + 9;
    reader.onBytes = () => this.progress(Math.max(0, Math.min(this.remoteSize, reader.received - base)));
    this.startMeter(this.remoteSize);
  }

  private receiveData(payload: string): void {
    if (this.localTarget === null) return;
    try {
      this.ctx.host.disk.appendFile(this.localTarget, bytesToArray(payload));
    } catch (e) {
      logLine(this.ctx, `scp: write local "${this.localTarget}": ${errnoText(e)}`);
      this.end(false);
    }
  }

  /**
   * Remote to remote, through this host: announce the file to the target,
   * then pass the source's data and end frames on as they arrive (the
   * framing is the same both ways), keeping what came before the target
   * was ready.
   */
  private relayTo(writer: SshConnection): void {
    const size = this.remoteSize;
    const reader = this.conns[0]!;
    let held: Uint8Array[] | null = [];
    // The chunk being parsed now carries the status message (the server
    // writes each message as its own chunk): it is not passed on.
    let statusChunk = true;
    reader.onRaw = (data) => {
      if (statusChunk) {
        statusChunk = false;
        return;
      }
      if (held !== null) held.push(data);
      else writer.socket.write(data);
    };
    this.announce(writer, size, () => {
      const sent = writer.socket.bytesOut;
      watchDelivery(writer.socket, (total) => this.progress(Math.max(0, Math.min(size, total - sent - 9))));
      this.startMeter(size);
      for (const chunk of held ?? []) writer.socket.write(chunk);
      held = null;
    });
  }

  private upload(writer: SshConnection, bytes: Uint8Array): void {
    this.announce(writer, bytes.length, () => {
      const sent = writer.socket.bytesOut;
      watchDelivery(writer.socket, (total) => this.progress(Math.max(0, Math.min(bytes.length, total - sent - 9))));
      this.startMeter(bytes.length);
      writer.send('D', bytesFromArray(bytes));
      writer.send('E', '');
    });
  }

  /** W, then S; on success `go`, then wait for the final A. */
  private announce(writer: SshConnection, size: number, go: () => void): void {
    const { src, target } = this;
    writer.onMessage = (type, payload) => {
      if (type === 'S') {
        if (!payload.startsWith('ok')) {
          const [code, ...rest] = payload.split(' ');
          logLine(this.ctx, `scp: dest open "${rest.join(' ') || remotePath(target.path)}": ${fx2txt(code!)}`);
          logLine(this.ctx, `scp: failed to upload file ${src.path} to ${target.path}`);
          this.end(false);
          return;
        }
        go();
      } else if (type === 'A') {
        if (payload !== 'ok') {
          logLine(this.ctx, `scp: write remote "${remotePath(target.path)}": ${fx2txt(payload)}`);
          this.complete(false);
          return;
        }
        this.complete(true);
      }
    };
    writer.send('W', `${size}\n${target.path}\n${baseName(src.path)}`);
  }

  private startMeter(size: number): void {
    if (!this.showProgress) return;
    const kernel = this.ctx.world.kernel;
    this.meter = new ProgressMeter(baseName(this.src.path), size, kernel.now / 1e6, this.ctx.columns);
    this.ctx.out(this.meter.refresh(this.counter, kernel.now / 1e6));
    const tick = (): void => {
      this.meterTimer = null;
      if (this.done || this.meter === null) return;
      this.ctx.out(this.meter.refresh(this.counter, kernel.now / 1e6));
      this.meterTimer = kernel.after(1_000_000, tick);
    };
    this.meterTimer = kernel.after(1_000_000, tick);
  }

  private progress(bytes: number): void {
    this.counter = bytes;
  }

  private complete(ok: boolean): void {
    if (this.done) return;
    if (this.meter !== null) {
      // The meter's last line unless it already shows where the copy
      // ended, then the newline stop_progress_meter writes.
      if (this.meter.position !== this.counter) this.ctx.out(this.meter.refresh(this.counter, this.ctx.world.kernel.now / 1e6));
      this.ctx.out('\n');
    }
    this.end(ok);
  }

  private end(ok: boolean): void {
    if (this.done) return;
    this.done = true;
    this.ctx.world.kernel.cancel(this.meterTimer);
    for (const c of this.conns) c.close();
    this.next(ok);
  }

  abort(): void {
    if (this.done) return;
    this.done = true;
    this.ctx.world.kernel.cancel(this.meterTimer);
    for (const c of this.conns) c.abort();
  }
}
