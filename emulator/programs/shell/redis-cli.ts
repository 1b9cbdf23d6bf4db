import { printsVerbatim } from '../../redis-cli/command-rules.js';
import { formatReply, UnknownReplyTypeError, type OutputMode } from '../../redis-cli/format.js';
import { helpText } from '../../redis-cli/help.js';
import { asciiLower } from '../../resp/bytes.js';
import { encodeCommand } from '../../resp/encode.js';
import { ReplyParser } from '../../resp/reply-parser.js';
import { ErrorReply, PushReply, type Reply } from '../../resp/reply.js';
import type { SimEvent } from '../../sim/kernel.js';
import type { NetError } from '../../sim/network.js';
import { AckTrace } from '../../world/ack-trace.js';
import { resolveHost } from './addresses.js';
import type { Command } from './context.js';

/**
 * redis-cli 7.0 given a command (`redis-cli -h host -p port SET k v`):
 * connects through the simulated network from this host, runs the
 * command (-r times, -i seconds apart), prints each reply the way
 * redis-cli does (formatted on a terminal, raw otherwise) and exits.
 * Without a command, the interactive session is the terminal's to give.
 */
export const redisCli: Command = (ctx, args) => {
  const o = parseOptions(args);
  if ('error' in o) {
    ctx.err(o.error);
    return 1;
  }
  if ('version' in o) {
    ctx.out('redis-cli 7.0.15\n');
    return 0;
  }
  const world = ctx.world;
  const shownHost = o.socket ?? o.host;
  const port: number | string = o.socket ?? o.port;
  const where = o.socket ?? `${o.host}:${o.port}`;
  const resolved = o.socket !== null ? { host: ctx.host.name } : resolveHost(world, ctx.host.name, o.host);
  if (o.command.length === 0) {
    if (resolved !== null && ctx.shell.interactiveRedisCli({ host: resolved.host, shownHost, port, db: o.db, resp3: o.resp3, raw: o.raw })) return 0;
    ctx.err('redis-cli: the interactive mode is not available in this shell; give a command (redis-cli PING)\n');
    return 1;
  }
  const name = asciiLower(o.command[0]!);
  if (name === 'help' || name === '?') {
    ctx.out(helpText(o.command.slice(1)));
    return 0;
  }
  if (o.password !== null) ctx.err("Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.\n");
  if (resolved === null) {
    ctx.err(`Could not connect to Redis at ${where}: Name or service not known\n`);
    return 1;
  }
  const mode: OutputMode = o.raw === true ? 'raw' : o.raw === false ? 'tty' : ctx.isTerminal ? 'tty' : 'raw';
  const streaming = name === 'subscribe' || name === 'psubscribe' || name === 'ssubscribe' || name === 'monitor';
  const kernel = world.kernel;
  const socket = world.network.connect(ctx.host, resolved.host, port);
  const parser = new ReplyParser();
  // What redis-cli printed is what its user was told: the acknowledged-writes ledger counts it.
  const acks = new AckTrace(world, socket);
  let connected = false;
  let sent = 0;
  let timer: SimEvent | null = null;
  // Replies still to come before the command's own: AUTH, SELECT, HELLO.
  const setup: Array<{ argv: string[]; failed: (r: ErrorReply) => string }> = [];
  if (o.password !== null) setup.push({ argv: o.user !== null ? ['AUTH', o.user, o.password] : ['AUTH', o.password], failed: (r) => `AUTH failed: ${r.message}\n` });
  if (o.db !== 0) setup.push({ argv: ['SELECT', String(o.db)], failed: (r) => `SELECT ${o.db} failed: ${r.message}\n` });
  if (o.resp3) setup.push({ argv: ['HELLO', '3'], failed: (r) => `HELLO 3 failed: ${r.message}\n` });

  const end = (status: number): void => {
    kernel.cancel(timer);
    socket.onClose = null;
    socket.end();
    if (job.running) job.finish(status);
  };
  const sendCommand = (): void => {
    timer = null;
    sent++;
    socket.write(encodeCommand(o.command));
  };
  const job = ctx.foreground('redis-cli', ['redis-cli', ...args], {
    onInterrupt: () => end(130),
    onKilled: () => {
      kernel.cancel(timer);
      socket.destroy();
    },
  });
  job.process.sockets.add(socket);

  socket.onConnect = () => {
    connected = true;
    for (const s of setup) socket.write(encodeCommand(s.argv));
    if (o.repeat > 0) sendCommand();
    else end(0);
  };
  let replies = 0;
  socket.onData = (data) => {
    parser.feed(data);
    for (;;) {
      let r: Reply | undefined;
      try {
        r = parser.next();
      } catch (e) {
        ctx.err(`Error: ${(e as Error).message}\n`);
        end(1);
        return;
      }
      if (r === undefined) return;
      if (setup.length !== 0) {
        const s = setup.shift()!;
        if (r instanceof ErrorReply) {
          ctx.err(s.failed(r));
          end(1);
          return;
        }
        continue;
      }
      // Pushes between replies (client tracking) are shown on a terminal and not counted.
      if (r instanceof PushReply && !streaming) {
        if (mode === 'tty') ctx.out(formatReply(r, mode));
        continue;
      }
      try {
        ctx.out(formatReply(r, mode, printsVerbatim(o.command)));
      } catch (e) {
        if (!(e instanceof UnknownReplyTypeError)) throw e;
        ctx.err(e.message + '\n');
        end(1);
        return;
      }
      if (streaming) {
        if (r instanceof ErrorReply) end(1);
        continue;
      }
      acks.reply(o.command, r);
      replies++;
      if (replies < o.repeat && replies === sent) {
        if (o.intervalUs > 0) timer = kernel.after(o.intervalUs, sendCommand);
        else sendCommand();
      } else if (replies >= o.repeat) {
        end(0);
        return;
      }
    }
  };
  socket.onClose = (error: NetError | null) => {
    if (!job.running) return;
    if (!connected) {
      ctx.err(`Could not connect to Redis at ${where}: ${error?.message ?? 'Connection refused'}\n`);
      job.finish(1);
      return;
    }
    // SHUTDOWN closes the connection on purpose: redis-cli says nothing.
    if (name === 'shutdown') {
      job.finish(0);
      return;
    }
    ctx.err(`Error: ${error === null ? 'Server closed the connection' : error.message}\n`);
    job.finish(1);
  };
  if (streaming && mode === 'tty' && name !== 'monitor') ctx.out('Reading messages... (press Ctrl-C to quit)\n');
  return 'job';
};

interface CliOptions {
  host: string;
  port: number;
  socket: string | null;
  db: number;
  repeat: number;
  intervalUs: number;
  resp3: boolean;
  raw: boolean | null;
  user: string | null;
  password: string | null;
  command: string[];
}

/** redis-cli's parseOptions for the options that make sense here. */
function parseOptions(args: readonly string[]): CliOptions | { error: string } | { version: true } {
  const o: CliOptions = { host: '127.0.0.1', port: 6379, socket: null, db: 0, repeat: 1, intervalUs: 0, resp3: false, raw: null, user: null, password: null, command: [] };
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-')) break;
    const hasValue = i + 1 < args.length;
    const value = (): string => args[++i]!;
    if (a === '-h' && hasValue) o.host = value();
    else if (a === '-p' && hasValue) o.port = atoi(value());
    else if (a === '-s' && hasValue) o.socket = value();
    else if (a === '-n' && hasValue) o.db = atoi(value());
    else if (a === '-r' && hasValue) o.repeat = atoi(value());
    else if (a === '-i' && hasValue) o.intervalUs = Math.round(Number(value()) * 1e6) || 0;
    else if ((a === '-a' || a === '--pass') && hasValue) o.password = value();
    else if (a === '--user' && hasValue) o.user = value();
    else if (a === '-2') o.resp3 = false;
    else if (a === '-3') o.resp3 = true;
    else if (a === '--raw') o.raw = true;
    else if (a === '--no-raw') o.raw = false;
    else if (a === '-v' || a === '--version') return { version: true };
    else return { error: `Unrecognized option or bad number of args for: '${a}'\n` };
  }
  o.command = args.slice(i);
  return o;
}

function atoi(s: string): number {
  const m = /^\s*([+-]?\d+)/.exec(s);
  return m ? Number(m[1]) : 0;
}
