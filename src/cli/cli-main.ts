/**
 * `npm run cli` and `npm start`: a terminal like redis-cli 7.0 on an
 * emulated server that lives in this process. Interactive with line
 * editing and history on a terminal; reads commands line by line when its
 * input is piped; runs one command when given one as arguments.
 */
import { randomInt } from 'node:crypto';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { RedisServer, bytesToUtf8, utf8ToBytes } from '../../emulator/index.js';
import { CliSession } from '../../emulator/cli/session.js';
import { InProcessLink } from '../../emulator/cli/link.js';
import { completionWords } from '../../emulator/cli/help.js';
import type { OutputMode } from '../../emulator/cli/format.js';
import { historyPath, loadHistory, saveHistory, HISTORY_MAX_LINES } from './history.js';
import { WallClock } from './wall-clock.js';

export interface CliIO {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable;
  env: NodeJS.ProcessEnv;
}

interface CliOptions {
  host: string;
  port: number;
  db: number;
  resp3: boolean;
  output: OutputMode | null;
  repeat: number;
  command: string[];
}

type Parsed = CliOptions | { exit: number; text?: string; error?: string };

const USAGE = `Usage: npm run cli -- [OPTIONS] [cmd [arg [arg ...]]]
A terminal like redis-cli 7.0 on a Redis 7.0 emulated in this process.
  -h <hostname>      Host name the prompt shows (default: 127.0.0.1).
  -p <port>          Port the prompt shows (default: 6379).
  -n <db>            Database number.
  -2                 Start the session in RESP2 protocol mode.
  -3                 Start the session in RESP3 protocol mode.
  -r <repeat>        Run the command this many times.
  --raw              Raw output, even on a terminal.
  --no-raw           Formatted output, even when not on a terminal.
  -v, --version      Print the version.
  --help             This text.
`;

function parseOptions(args: readonly string[]): Parsed {
  const o: CliOptions = { host: '127.0.0.1', port: 6379, db: 0, resp3: false, output: null, repeat: 1, command: [] };
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    const hasValue = i + 1 < args.length;
    if (a === '-h' && hasValue) o.host = args[++i]!;
    else if (a === '-h' || a === '--help') return { exit: 0, text: USAGE };
    else if (a === '-p' && hasValue) o.port = Number.parseInt(args[++i]!, 10) || 0;
    else if (a === '-n' && hasValue) o.db = Number.parseInt(args[++i]!, 10) || 0;
    else if (a === '-r' && hasValue) o.repeat = Number.parseInt(args[++i]!, 10) || 0;
    else if (a === '-2') o.resp3 = false;
    else if (a === '-3') o.resp3 = true;
    else if (a === '--raw') o.output = 'raw';
    else if (a === '--no-raw') o.output = 'tty';
    else if (a === '-v' || a === '--version') return { exit: 0, text: 'redis-cli 7.0.15 (redis-workbook terminal)\n' };
    else if (a.startsWith('-')) return { exit: 1, error: `Unrecognized option or bad number of args for: '${a}'\n` };
    else break;
  }
  o.command = args.slice(i).map(utf8ToBytes);
  return o;
}

const BANNER =
  'redis-workbook terminal: a Redis 7.0 emulated in this process, not a real server.\n' +
  'Data lives in memory and is gone when you leave. "help" for help, "quit" to leave.\n';

/** Runs the terminal; resolves the exit status. */
export async function runCli(args: readonly string[], io: CliIO): Promise<number> {
  const parsed = parseOptions(args);
  if ('exit' in parsed) {
    if (parsed.text) io.stdout.write(parsed.text);
    if (parsed.error) io.stderr.write(parsed.error);
    return parsed.exit;
  }
  const o = parsed;
  const server = new RedisServer({ clock: new WallClock(), seed: randomInt(2 ** 31), host: o.host, port: o.port });
  const hz = Math.max(1, server.config.getNumber('hz'));
  const cron = setInterval(() => server.cron(), Math.round(1000 / hz));
  cron.unref();
  // redis-cli prints raw replies when its output is not a terminal (unless FAKETTY is set).
  const onTerminal = io.stdout.isTTY === true || io.env.FAKETTY !== undefined;
  const output = o.output ?? (onTerminal ? 'tty' : 'raw');
  const session = new CliSession({
    connect: () => new InProcessLink(server),
    host: o.host,
    port: o.port,
    output,
    showPushes: onTerminal,
    resp3: o.resp3,
    db: o.db,
    write: (bytes) => void io.stdout.write(Buffer.from(bytes, 'latin1')),
    writeError: (text) => void io.stderr.write(Buffer.from(text, 'latin1')),
    nowMs: () => performance.now(),
  });
  try {
    if (o.command.length !== 0) return await session.runCommand(o.command, o.repeat);
    await session.connect();
    if (io.stdin.isTTY) return await interactive(session, io);
    return await piped(session, io);
  } finally {
    clearInterval(cron);
  }
}

/** Lines from a pipe: no prompt, no history, each line run in turn. */
async function piped(session: CliSession, io: CliIO): Promise<number> {
  let pending = '';
  for await (const chunk of io.stdin) {
    pending += (chunk as Buffer).toString('latin1');
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      const r = await session.runLine(line);
      if (r.exit !== undefined) return r.exit;
    }
  }
  if (pending !== '') {
    const r = await session.runLine(pending);
    if (r.exit !== undefined) return r.exit;
  }
  return 0;
}

/** Tab completion over command names, and help topics after "help ". */
function completer(line: string): [string[], string] {
  const words = completionWords();
  const help = /^help\s+/i.exec(line);
  const candidates = help ? [...words.commands, ...words.groups] : words.commands;
  const typed = help ? line.slice(help[0].length) : line;
  const hits = candidates.filter((c) => c.toLowerCase().startsWith(typed.toLowerCase()));
  return [hits.map((h) => (help ? help[0] : '') + h), line];
}

/** The interactive loop: line editing, history, Ctrl-C as redis-cli treats it. */
function interactive(session: CliSession, io: CliIO): Promise<number> {
  const path = historyPath(io.env);
  const saved = loadHistory(path);
  io.stdout.write(BANNER);
  return new Promise((resolve) => {
    const rl: Interface = createInterface({
      input: io.stdin,
      output: io.stdout,
      terminal: true,
      history: [...saved].reverse(),
      historySize: HISTORY_MAX_LINES,
      completer,
      prompt: session.prompt,
    });
    // readline keeps the newest line first; the history file is oldest first.
    const history = (rl as unknown as { history: string[] }).history;
    const queue: string[] = [];
    let running = false;
    let finished = false;
    const finish = (status: number): void => {
      if (finished) return;
      finished = true;
      rl.close();
      resolve(status);
    };
    const pump = async (): Promise<void> => {
      if (running) return;
      running = true;
      while (queue.length !== 0 && !finished) {
        const line = queue.shift()!;
        const r = await session.runLine(utf8ToBytes(line));
        if (!r.history && history[0] === line) history.shift();
        saveHistory(path, [...history].reverse());
        if (r.exit !== undefined) {
          finish(r.exit);
          break;
        }
      }
      running = false;
      if (!finished) {
        rl.setPrompt(bytesToUtf8(session.prompt));
        rl.prompt();
      }
    };
    rl.on('line', (line) => {
      queue.push(line);
      void pump();
    });
    rl.on('SIGINT', () => {
      // At the prompt Ctrl-C leaves; while MONITOR or SUBSCRIBE run it ends
      // them; during any other command redis-cli exits with status 1.
      if (!running) finish(0);
      else if (session.interrupt() === 'exit') finish(1);
    });
    rl.on('close', () => finish(0));
    rl.setPrompt(bytesToUtf8(session.prompt));
    rl.prompt();
  });
}
