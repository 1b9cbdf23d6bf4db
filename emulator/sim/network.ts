import type { Kernel, SimEvent } from './kernel.js';
import { LINK_PROFILES, type LinkProfile } from './links.js';
import { headOf, type WireRecorder } from './wire.js';

/**
 * The wires between hosts. Connections are ordered byte streams whose bytes
 * really travel: each chunk leaves when the link is free, takes its
 * transmission time at the link's bandwidth, then the one-way latency and
 * per-packet cost, and arrives as an event. A partition holds a direction's
 * bytes back (TCP keeps retransmitting) until it heals; a host that loses
 * power stops answering, and when it is back its kernel resets connections
 * it no longer knows.
 */

/** Socket errors with Linux's strerror texts, as clients print them. */
export class NetError extends Error {
  constructor(
    readonly code: 'ECONNREFUSED' | 'ECONNRESET' | 'ETIMEDOUT' | 'EADDRNOTAVAIL' | 'EADDRINUSE' | 'EHOSTUNREACH' | 'ENETDOWN' | 'EPIPE' | 'ENOENT',
    message: string,
  ) {
    super(message);
    this.name = 'NetError';
  }
}

export const NET_ERRORS = {
  ECONNREFUSED: 'Connection refused',
  ECONNRESET: 'Connection reset by peer',
  ETIMEDOUT: 'Connection timed out',
  EADDRNOTAVAIL: 'Cannot assign requested address',
  EADDRINUSE: 'Address already in use',
  EHOSTUNREACH: 'No route to host',
  ENETDOWN: 'Network is down',
  EPIPE: 'Broken pipe',
  ENOENT: 'No such file or directory',
} as const;

export function netError(code: keyof typeof NET_ERRORS): NetError {
  return new NetError(code, NET_ERRORS[code]);
}

/** Linux's default ephemeral port range (net.ipv4.ip_local_port_range). */
export const EPHEMERAL_FIRST = 32768;
export const EPHEMERAL_LAST = 60999;
/** How long the side that closes first keeps the port (TCP_TIMEWAIT_LEN, 60 s). */
export const TIME_WAIT_US = 60_000_000;
/** SYN retries before connect() gives up: 1+2+4+8+16+32+64 s (tcp_syn_retries = 6). */
export const CONNECT_TIMEOUT_US = 127_000_000;
/** Largest piece a write is cut into, so long transfers make visible progress. */
const CHUNK_BYTES = 64 * 1024;

/** What the network needs from a host. */
/** A host's ephemeral ports, both ends included. */
export interface PortRange {
  readonly first: number;
  readonly last: number;
}

export interface NetHost {
  readonly name: string;
  readonly powered: boolean;
  /** Incremented at each boot: connections from an earlier boot are unknown to it. */
  readonly bootId: number;
  /** Its address on the network (10.0.0.x). */
  readonly ip: string;
  /** Finds who accepts connections on a port or Unix socket path. */
  listener(port: number | string): Listener | undefined;
}

export interface Listener {
  readonly host: NetHost;
  readonly port: number | string;
  accept(socket: Socket): void;
}

/** One direction of a link: when it is next free, and whether it is cut. */
export class Direction {
  busyUntil = 0;
  cut = false;
}

export class Link {
  readonly ab = new Direction();
  readonly ba = new Direction();
  constructor(
    readonly a: string,
    readonly b: string,
    public profile: LinkProfile,
  ) {}

  direction(from: string): Direction {
    return from === this.a ? this.ab : this.ba;
  }
}

interface Chunk {
  /**
   * Its bytes, or the byte string they were written as: a string travels as
   * it is and becomes bytes only on arrival, for a reader of bytes (onData),
   * so a reader of byte strings (onText) never pays for the conversion.
   */
  data: Uint8Array | string;
  /** FIN after the last byte: the sender closed its side. */
  fin: boolean;
}

export type SocketState = 'connecting' | 'open' | 'closed';

/**
 * One end of a connection. Callbacks run inside kernel events.
 *
 *   const s = net.connect(appHost, 'redis', 6379);
 *   s.onConnect = () => s.write('PING\r\n');
 *   s.onData = (bytes) => ...;
 *   s.onText = (byteString) => ...;   // instead of onData: the bytes as a byte string
 *   s.onClose = (err) => ...;     // null: the peer closed; NetError: reset, refused, timed out
 */
export class Socket {
  state: SocketState = 'connecting';
  peer: Socket | null = null;
  onConnect: (() => void) | null = null;
  onData: ((data: Uint8Array) => void) | null = null;
  /**
   * A reader of byte strings, which takes the place of onData when set:
   * what was written as a string comes as that string (or a piece of it),
   * with no copy into bytes and back.
   */
  onText: ((data: string) => void) | null = null;
  onClose: ((error: NetError | null) => void) | null = null;
  /**
   * Its own machine lost power. Processes die with the machine and need no
   * word; an owner that outlives it (a terminal of the workbook) is told,
   * since no onClose will ever come.
   */
  onHostDown: (() => void) | null = null;
  /** Bytes written and bytes delivered to this end, for INFO and the panels. */
  bytesOut = 0;
  bytesIn = 0;
  /** Chunks this end sent that wait out a partition, in order. */
  stalled: Chunk[] = [];
  /** The last arrival time scheduled towards the peer: keeps the stream ordered under jitter. */
  lastArrival = 0;
  /** This end wrote its FIN (end()); later writes are refused. */
  finSent = false;
  /** The boot of its host when the socket was made. */
  readonly bootId: number;
  /** The server's end of an accepted connection: its port is the listening one, never held in TIME_WAIT. */
  accepted = false;
  connectTimer: SimEvent | null = null;
  /**
   * This end's sending direction on the link partitions cut (the hosts'
   * link, also for a Unix socket) and the link its bytes travel (a Unix
   * socket's own path), found at the first send: a link, once made, is
   * never replaced, so the per-chunk work needs no lookup by name.
   */
  cutDirection: Direction | null = null;
  path: Link | null = null;
  pathDirection: Direction | null = null;

  constructor(
    readonly net: Network,
    readonly id: number,
    readonly host: NetHost,
    readonly localPort: number | string,
    readonly remoteHost: string,
    readonly remotePort: number | string,
    readonly unix: boolean,
  ) {
    this.bootId = host.bootId;
  }

  /** 'host:port' of this end and of the other, by host name (for the trace). */
  get localAddress(): string {
    return `${this.host.name}:${this.localPort}`;
  }
  get remoteAddress(): string {
    return `${this.remoteHost}:${this.remotePort}`;
  }

  /**
   * The IP addresses of the two ends as the hosts' kernels see them: within
   * one host the connection goes over the loopback (127.0.0.1), between
   * hosts each has its own address. Unix sockets have none.
   */
  get localIp(): string {
    if (this.remoteHost === this.host.name) return '127.0.0.1';
    return this.host.ip;
  }
  get remoteIp(): string {
    if (this.remoteHost === this.host.name) return '127.0.0.1';
    return this.net.ipOf(this.remoteHost);
  }

  /**
   * Queues bytes for the peer; false when the socket can no longer send.
   * `atUs` lets a process whose thread is ahead of the kernel (busy with
   * work) send at the moment its work ends.
   */
  write(data: Uint8Array | string, atUs?: number): boolean {
    if (this.state !== 'open' || this.finSent) return false;
    const length = data.length;
    if (length === 0) return true;
    this.bytesOut += length;
    if (length <= CHUNK_BYTES) {
      this.net.send(this, { data, fin: false }, atUs);
      return true;
    }
    for (let off = 0; off < length; off += CHUNK_BYTES) {
      const piece = typeof data === 'string' ? data.slice(off, off + CHUNK_BYTES) : data.subarray(off, off + CHUNK_BYTES);
      this.net.send(this, { data: piece, fin: false }, atUs);
    }
    return true;
  }

  /** Closes this side after the bytes already written (a FIN); the port goes to TIME_WAIT if first. */
  end(): void {
    if (this.state === 'closed' || this.finSent) return;
    if (this.state === 'connecting') {
      this.destroy();
      return;
    }
    this.finSent = true;
    this.net.closedFirst(this);
    this.net.send(this, { data: EMPTY, fin: true });
  }

  /** Drops the connection at once (an RST): the peer sees ECONNRESET. */
  destroy(): void {
    if (this.state === 'closed') return;
    const peer = this.peer;
    this.net.release(this, null, false);
    if (peer !== null && peer.state !== 'closed') this.net.resetLater(this, peer);
  }
}

const EMPTY = new Uint8Array(0);

export function byteStringToArray(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

function byteArrayToString(a: Uint8Array): string {
  let s = '';
  for (let i = 0; i < a.length; i += 8192) s += String.fromCharCode.apply(null, a.subarray(i, i + 8192) as unknown as number[]);
  return s;
}

/**
 * The last string turned into bytes on arrival, and its bytes: a primary
 * writes the same string of its stream to every replica at once, and each
 * replica's socket is given the one copy (readers never write into what
 * they are given).
 */
let lastText = '';
let lastBytes: Uint8Array = EMPTY;

function arrivedBytes(s: string): Uint8Array {
  if (s !== lastText) {
    lastBytes = byteStringToArray(s);
    lastText = s;
  }
  return lastBytes;
}

export class Network {
  private links = new Map<string, Link>();
  private nextSocketId = 1;
  /** Live sockets per host, for power loss and the panels. */
  readonly sockets = new Map<string, Set<Socket>>();
  /** Ports in use and in TIME_WAIT per client host: port -> time the wait ends, per destination. */
  private timeWait = new Map<string, Map<string, number>>();
  private portCursor = new Map<string, number>();
  /** Ephemeral port ranges set on hosts (sysctl -w net.ipv4.ip_local_port_range); others use Linux's default. */
  private portRanges = new Map<string, PortRange>();
  /** The bytes sent, kept for the message view once a viewer turns recording on. */
  wire: WireRecorder | null = null;
  /** The profile used between two hosts that were never linked, and within a host. */
  defaultProfile: LinkProfile = LINK_PROFILES.lan;
  localProfile: LinkProfile = LINK_PROFILES.localhost;
  unixProfile: LinkProfile = LINK_PROFILES.unix;

  constructor(
    readonly kernel: Kernel,
    private readonly hostByName: (name: string) => NetHost | undefined,
    /** Every host, for finding one by its address. */
    private readonly allHosts: () => Iterable<NetHost> = () => [],
  ) {}

  /** The IP address of a host, by name. */
  ipOf(name: string): string {
    return this.hostByName(name)?.ip ?? '0.0.0.0';
  }

  /**
   * The host a name or address means, seen from host `from`, as its
   * resolver would find it: the loopback names and addresses are `from`
   * itself, then host names, then each host's address. Null when nothing
   * answers to it.
   */
  resolve(from: string, target: string): string | null {
    if (target === 'localhost' || target === '::1' || /^127\.\d+\.\d+\.\d+$/.test(target)) return from;
    if (this.hostByName(target) !== undefined) return target;
    for (const h of this.allHosts()) if (h.ip === target) return h.name;
    return null;
  }

  private key(a: string, b: string): string {
    return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
  }

  /**
   * The link between two hosts, created with the default profile on first
   * use. Unix sockets within a host have a path of their own.
   */
  link(a: string, b: string, unix = false): Link {
    const k = unix ? `${a}\u0001unix` : this.key(a, b);
    let l = this.links.get(k);
    if (l === undefined) {
      const profile = unix ? this.unixProfile : a === b ? this.localProfile : this.defaultProfile;
      l = a < b ? new Link(a, b, profile) : new Link(b, a, profile);
      this.links.set(k, l);
    }
    return l;
  }

  setLink(a: string, b: string, profile: LinkProfile): void {
    this.link(a, b).profile = profile;
    this.kernel.trace.add('net', 'link', `${a} <-> ${b} ${profile.name} rtt=${profile.rttUs}us bandwidth=${profile.bandwidthBps}bps`);
  }

  /** Cuts a → b (and b → a unless oneWay). */
  partition(a: string, b: string, oneWay = false): void {
    const l = this.link(a, b);
    l.direction(a).cut = true;
    if (!oneWay) l.direction(b).cut = true;
    this.kernel.trace.add('net', 'partition', oneWay ? `${a} -> ${b}` : `${a} <-> ${b}`);
  }

  /** Heals a cut between two hosts, or every cut when no hosts are named. */
  heal(a?: string, b?: string): void {
    for (const l of this.links.values()) {
      if (a !== undefined && !((l.a === a && (b === undefined || l.b === b)) || (l.b === a && (b === undefined || l.a === b)))) continue;
      if (!l.ab.cut && !l.ba.cut) continue;
      l.ab.cut = false;
      l.ba.cut = false;
      this.kernel.trace.add('net', 'heal', `${l.a} <-> ${l.b}`);
    }
    // Retransmit what waited, in order.
    for (const set of this.sockets.values()) {
      for (const s of set) {
        if (s.stalled.length === 0) continue;
        const l = this.link(s.host.name, s.remoteHost);
        if (l.direction(s.host.name).cut) continue;
        const queued = s.stalled;
        s.stalled = [];
        for (const c of queued) this.send(s, c);
      }
    }
  }

  isCut(from: string, to: string): boolean {
    return this.link(from, to).direction(from).cut;
  }

  /** Every link with its profile and cuts, for the panels and `sim` verbs. */
  allLinks(): Link[] {
    return [...this.links.values()];
  }

  /**
   * When `bytes` sent now from `from` to `to` arrive: they wait behind the
   * bytes already queued in that direction, take their transmission time at
   * the link's bandwidth, then half the round trip and the per-packet cost
   * (plus jitter). Reserves the link for them. Never earlier than `after`.
   * Datagrams (ping's echo) use it as connections do.
   */
  arrivalTime(from: string, to: string, bytes: number, after = 0): number {
    return this.schedule(from, to, bytes, after);
  }

  private schedule(from: string, to: string, bytes: number, after: number, atUs?: number, unix = false): number {
    const l = this.link(from, to, unix);
    return this.scheduleOn(l, l.direction(from), bytes, after, atUs);
  }

  /** The socket's direction that partitions cut (isCut for its hosts). */
  private cutDirectionOf(s: Socket): Direction {
    if (s.cutDirection === null) s.cutDirection = this.link(s.host.name, s.remoteHost).direction(s.host.name);
    return s.cutDirection;
  }

  /** The link the socket's bytes travel, with its sending direction set beside it. */
  pathOf(s: Socket): Link {
    if (s.path === null) {
      s.path = this.link(s.host.name, s.remoteHost, s.unix);
      s.pathDirection = s.path.direction(s.host.name);
    }
    return s.path;
  }

  private scheduleOn(l: Link, dir: Direction, bytes: number, after: number, atUs?: number): number {
    const p = l.profile;
    const now = atUs !== undefined && atUs > this.kernel.now ? atUs : this.kernel.now;
    const depart = Math.max(now, dir.busyUntil);
    const txUs = (bytes * 8e6) / p.bandwidthBps;
    dir.busyUntil = depart + txUs;
    const packets = bytes === 0 ? 1 : Math.ceil(bytes / p.mssBytes);
    let arrival = depart + txUs + p.rttUs / 2 + p.perPacketUs * packets;
    if (p.jitterUs > 0) arrival += this.kernel.random.below(p.jitterUs + 1);
    arrival = Math.round(arrival);
    return arrival > after ? arrival : after;
  }

  /** Sends a chunk from one end towards its peer. */
  send(from: Socket, chunk: Chunk, atUs?: number): void {
    if (from.stalled.length !== 0 || this.cutDirectionOf(from).cut) {
      from.stalled.push(chunk);
      return;
    }
    const arrival = this.scheduleOn(this.pathOf(from), from.pathDirection!, chunk.data.length, from.lastArrival, atUs);
    from.lastArrival = arrival;
    if (this.wire !== null && chunk.data.length !== 0) {
      this.wire.add({
        sentUs: atUs !== undefined && atUs > this.kernel.now ? atUs : this.kernel.now,
        arriveUs: arrival,
        fromHost: from.host.name,
        fromPort: from.localPort,
        toHost: from.remoteHost,
        toPort: from.remotePort,
        socket: from.id,
        bytes: chunk.data.length,
        head: headOf(chunk.data),
      });
    }
    this.kernel.at(arrival, () => this.arrive(from, chunk));
  }

  private arrive(from: Socket, chunk: Chunk): void {
    const to = from.peer;
    if (to === null) return;
    if (this.cutDirectionOf(from).cut) {
      // Lost on the way; TCP sends it again once the path is back.
      from.stalled.push(chunk);
      return;
    }
    const target = this.hostByName(from.remoteHost);
    if (target === undefined || !target.powered) return;
    if (target.bootId !== to.bootId || to.state === 'closed') {
      // The receiving kernel has no such connection (it rebooted, or the
      // socket is gone): it answers with a reset.
      if (from.state !== 'closed' && target.bootId !== to.bootId) this.resetLater(to, from);
      return;
    }
    const data = chunk.data;
    if (data.length !== 0) {
      to.bytesIn += data.length;
      if (to.onText !== null) to.onText(typeof data === 'string' ? data : byteArrayToString(data));
      else if (to.onData !== null) to.onData(typeof data === 'string' ? arrivedBytes(data) : data);
    }
    if (chunk.fin && (to.state as SocketState) !== 'closed') {
      // The peer closed its side. Programs here close theirs in turn (no
      // half-open use): the connection ends, and the first closer hears the
      // answering FIN one trip later.
      this.release(to, null, true);
      if (from.state !== 'closed') {
        const back = this.schedule(to.host.name, from.host.name, 0, to.lastArrival, undefined, to.unix);
        this.kernel.at(back, () => {
          if (from.bootId === from.host.bootId) this.release(from, null, true);
        });
      }
    }
  }

  /** Opens a connection from `host` to `toHost:port` (a number, or a Unix socket path on the same host). */
  connect(host: NetHost, toHost: string, port: number | string): Socket {
    const unix = typeof port === 'string';
    if (!host.powered) {
      // A machine without power has no network to send from: the attempt
      // fails at once (only a terminal of the workbook outlives its machine).
      const s = new Socket(this, this.nextSocketId++, host, 0, toHost, port, unix);
      s.state = 'closed';
      this.kernel.at(this.kernel.now, () => s.onClose?.(netError('ENETDOWN')));
      return s;
    }
    let local: number | string;
    if (unix) local = `unix:${this.nextSocketId}`;
    else {
      const p = this.allocatePort(host.name, `${toHost}:${port}`);
      local = p ?? 0;
    }
    const s = new Socket(this, this.nextSocketId++, host, local, toHost, port, unix);
    if (!unix && local === 0) {
      s.state = 'closed';
      this.kernel.at(this.kernel.now, () => s.onClose?.(netError('EADDRNOTAVAIL')));
      return s;
    }
    this.track(s);
    if (unix && toHost !== host.name) {
      this.release(s, netError('ECONNREFUSED'), false, true);
      return s;
    }
    this.sendSyn(s);
    s.connectTimer = this.kernel.after(CONNECT_TIMEOUT_US, () => {
      if (s.state === 'connecting') this.release(s, netError('ETIMEDOUT'), false);
    });
    return s;
  }

  private sendSyn(s: Socket): void {
    if (s.state !== 'connecting') return;
    const from = s.host.name;
    if (this.isCut(from, s.remoteHost)) {
      // The SYN is lost; the client's kernel tries again a second later.
      this.kernel.after(1_000_000, () => this.sendSyn(s));
      return;
    }
    const arrival = this.schedule(from, s.remoteHost, 0, 0, undefined, s.unix);
    this.kernel.at(arrival, () => {
      if (s.state !== 'connecting') return;
      const target = this.hostByName(s.remoteHost);
      if (target === undefined || !target.powered) {
        this.kernel.after(1_000_000, () => this.sendSyn(s));
        return;
      }
      const listener = target.listener(s.remotePort);
      const back = this.schedule(s.remoteHost, from, 0, 0, undefined, s.unix);
      if (listener === undefined) {
        // No one listens: a TCP port refuses; a Unix socket path that no
        // server has bound does not exist.
        const error = s.unix ? netError('ENOENT') : netError('ECONNREFUSED');
        this.kernel.at(back, () => {
          if (s.state === 'connecting') this.release(s, error, false);
        });
        return;
      }
      const server = new Socket(this, this.nextSocketId++, target, s.remotePort, from, s.localPort, s.unix);
      server.state = 'open';
      server.accepted = true;
      server.peer = s;
      s.peer = server;
      server.lastArrival = back;
      this.track(server);
      this.kernel.trace.add('net', 'connect', `${s.localAddress} -> ${server.localAddress}`);
      listener.accept(server);
      this.kernel.at(back, () => {
        if (s.state !== 'connecting') return;
        this.kernel.cancel(s.connectTimer);
        s.state = 'open';
        s.onConnect?.();
      });
    });
  }

  private track(s: Socket): void {
    let set = this.sockets.get(s.host.name);
    if (set === undefined) this.sockets.set(s.host.name, (set = new Set()));
    set.add(s);
  }

  /** Marks an end closed, frees it, and tells its owner. */
  release(s: Socket, error: NetError | null, notify: boolean, later = false): void {
    if (s.state === 'closed') return;
    s.state = 'closed';
    this.kernel.cancel(s.connectTimer);
    this.sockets.get(s.host.name)?.delete(s);
    if (error !== null && error.code !== 'ECONNREFUSED' && error.code !== 'ETIMEDOUT' && error.code !== 'ENOENT') {
      this.kernel.trace.add('net', 'reset', `${s.localAddress} <- ${s.remoteAddress}: ${error.message}`);
    }
    if (notify && error === null) this.kernel.trace.add('net', 'close', `${s.localAddress} <- ${s.remoteAddress}`);
    if (!notify && error === null) return;
    if (later) this.kernel.at(this.kernel.now, () => s.onClose?.(error));
    else s.onClose?.(error);
  }

  /** `to` learns, one trip later, that `from` reset the connection. */
  resetLater(from: Socket, to: Socket): void {
    if (to.state === 'closed') return;
    const arrival = this.schedule(from.host.name, to.host.name, 0, from.lastArrival, undefined, from.unix);
    this.kernel.at(arrival, () => {
      if (this.isCut(from.host.name, to.host.name)) return;
      if (to.bootId !== to.host.bootId || !to.host.powered) return;
      this.release(to, netError('ECONNRESET'), true);
    });
  }

  /** The side that closes first keeps its port in TIME_WAIT. */
  closedFirst(s: Socket): void {
    if (s.unix || typeof s.localPort !== 'number') return;
    if (s.peer !== null && s.peer.finSent) return;
    if (s.accepted) return;
    this.portsOf(s.host.name).set(`${s.localPort}>${s.remoteAddress}`, this.kernel.now + TIME_WAIT_US);
  }

  private portsOf(host: string): Map<string, number> {
    let m = this.timeWait.get(host);
    if (m === undefined) this.timeWait.set(host, (m = new Map()));
    return m;
  }

  /** Ports of `host` in TIME_WAIT right now. */
  timeWaitCount(host: string): number {
    const now = this.kernel.now;
    let n = 0;
    for (const until of this.portsOf(host).values()) if (until > now) n++;
    return n;
  }

  /** The ports `host` picks from for outgoing connections (net.ipv4.ip_local_port_range). */
  portRange(host: string): PortRange {
    return this.portRanges.get(host) ?? { first: EPHEMERAL_FIRST, last: EPHEMERAL_LAST };
  }

  /**
   * Sets the host's ephemeral port range, as `sysctl -w` does until the next
   * boot. Connections already open keep their ports; ports in TIME_WAIT stay
   * held. Linux refuses a range whose end is below its start, or outside
   * 1-65535 (ipv4_local_port_range in net/ipv4/sysctl_net_ipv4.c).
   */
  setPortRange(host: string, first: number, last: number): boolean {
    if (!Number.isInteger(first) || !Number.isInteger(last)) return false;
    if (first < 1 || last > 65535 || last < first) return false;
    this.portRanges.set(host, { first, last });
    this.portCursor.delete(host);
    return true;
  }

  /**
   * Picks a free ephemeral port towards `dest`: not used by a live socket of
   * the host and not in TIME_WAIT towards the same destination.
   */
  private allocatePort(host: string, dest: string): number | null {
    const waits = this.portsOf(host);
    const live = new Set<number>();
    for (const s of this.sockets.get(host) ?? []) if (typeof s.localPort === 'number') live.add(s.localPort);
    const { first, last } = this.portRange(host);
    const span = last - first + 1;
    let cursor = this.portCursor.get(host) ?? this.kernel.random.below(span);
    const now = this.kernel.now;
    for (let i = 0; i < span; i++) {
      const port = first + ((cursor + i) % span);
      if (live.has(port)) continue;
      const k = `${port}>${dest}`;
      const until = waits.get(k);
      if (until !== undefined) {
        if (until > now) continue;
        waits.delete(k);
      }
      cursor = (cursor + i + 1) % span;
      this.portCursor.set(host, cursor);
      return port;
    }
    return null;
  }

  /**
   * A host lost power: its sockets vanish without a word. Peers hear
   * nothing until they send to it after it is back (and get a reset).
   */
  hostDown(host: string): void {
    const set = this.sockets.get(host);
    if (set === undefined) return;
    const gone = [...set];
    for (const s of gone) {
      s.state = 'closed';
      this.kernel.cancel(s.connectTimer);
    }
    set.clear();
    for (const s of gone) s.onHostDown?.();
    this.timeWait.delete(host);
    // A setting made with sysctl -w lasts until the machine restarts.
    this.portRanges.delete(host);
  }

  /** A process died: the kernel closes its sockets, and their peers see the connection end. */
  closeSockets(sockets: Iterable<Socket>): void {
    for (const s of sockets) {
      if (s.state === 'open') s.end();
      else if (s.state === 'connecting') this.release(s, null, false);
    }
  }
}
