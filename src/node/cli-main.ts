/**
 * `npm run cli` and `npm start`: a terminal like redis-cli 7.0 on a
 * simulated machine, "redis", that runs an emulated redis-server. The
 * world follows the wall clock; the terminal's connection goes through
 * the simulated network from the same machine, so commands take virtual
 * time and blocking commands wait in real time. `:shell` (or `!command`)
 * reaches a shell on the machine, `:redis` comes back. Interactive with
 * line editing and history on a terminal; reads lines one by one when its
 * input is piped; runs one command when given one as arguments.
 */
// Every command's code, also those kept apart (emulator/commands/on-demand.ts).
import '../../emulator/commands/on-demand-handlers.js';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { bytesToUtf8, utf8ToBytes } from '../../emulator/index.js';
import { RedisCliRepl, type LineResult } from '../../emulator/redis-cli/repl.js';
import type { CliLink, OutputMode } from '../../emulator/redis-cli/index.js';
import { World } from '../../emulator/world/world.js';
import { HostShell, type RedisCliTarget } from '../../emulator/programs/shell-parts.js';
import { SessionLink, installRedisHost } from '../../emulator/programs/index.js';
import { historyPath, loadHistory, saveHistory, HISTORY_MAX_LINES } from './history.js';
import { hintClearing, hintPainting, redisCliCompleter, redisCliHint, type PromptLine } from './line-assist.js';
import { insertIntoLine, pasteAwareInput, type TtyInput } from './paste-input.js';
import { NodeWorldDriver } from './world-driver.js';

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
  seed: number;
  command: string[];
}

type Parsed = CliOptions | { exit: number; text?: string; error?: string };

const USAGE = `Usage: npm run cli -- [OPTIONS] [cmd [arg [arg ...]]]
A terminal like redis-cli 7.0 on a simulated machine running an emulated
Redis 7.0. Type :shell (or !command) for a shell on the machine.
  -h <hostname>      Host name the prompt shows (default: 127.0.0.1).
  -p <port>          Port the server listens on and the prompt shows (default: 6379).
  --seed <n>         Seed of the simulated world (default: 1).
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
  const o: CliOptions = { host: '127.0.0.1', port: 6379, db: 0, resp3: false, output: null, repeat: 1, seed: 1, command: [] };
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    const hasValue = i + 1 < args.length;
    if (a === '-h' && hasValue) o.host = args[++i]!;
    else if (a === '-h' || a === '--help') return { exit: 0, text: USAGE };
    else if (a === '-p' && hasValue) o.port = Number.parseInt(args[++i]!, 10) || 0;
    else if (a === '-n' && hasValue) o.db = Number.parseInt(args[++i]!, 10) || 0;
    else if (a === '-r' && hasValue) o.repeat = Number.parseInt(args[++i]!, 10) || 0;
    else if (a === '--seed' && hasValue && /^\d+$/.test(args[i + 1]!)) o.seed = Number(args[++i]!);
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
  'redis-workbook terminal: an emulated Redis 7.0 on a simulated machine, not a real server.\n' +
  'Data lives in memory and is gone when you leave. "help" for help, "quit" to leave.\n';

const HINT = 'Type :shell (or !command) for a shell on the machine "redis", :redis to come back.\n';

/** The simulated machine the terminal runs on. */
const HOST = 'redis';

/** Runs the terminal; resolves the exit status. */
export async function runCli(args: readonly string[], io: CliIO): Promise<number> {
  const parsed = parseOptions(args);
  if ('exit' in parsed) {
    if (parsed.text) io.stdout.write(parsed.text);
    if (parsed.error) io.stderr.write(parsed.error);
    return parsed.exit;
  }
  const o = parsed;
  // redis-cli prints raw replies when its output is not a terminal (unless FAKETTY is set).
  const onTerminal = io.stdout.isTTY === true || io.env.FAKETTY !== undefined;
  const terminal = new WorldTerminal(o, io, onTerminal);
  // The world's timer does not hold the process open; this does, while the
  // terminal waits for replies that only the world's time can bring.
  const keepAlive = setInterval(() => {}, 1 << 30);
  try {
    const session = terminal.main;
    if (o.command.length !== 0) return await session.runCommand(o.command, o.repeat);
    await session.connect();
    if (io.stdin.isTTY) return await interactive(terminal, io);
    return await piped(terminal, io);
  } finally {
    clearInterval(keepAlive);
    terminal.stop();
  }
}

/**
 * The world behind the terminal: the machine, its redis-server, the
 * realtime driver, the redis-cli sessions and the shell. Lines go to the
 * shell or to the current redis-cli session.
 */
class WorldTerminal {
  readonly world: World;
  readonly pump: NodeWorldDriver;
  readonly main: RedisCliRepl;
  /** The session lines go to in redis mode: the main one, or one opened by redis-cli in the shell. */
  session: RedisCliRepl;
  /** Whether `session` was opened from the shell, which it returns to on quit. */
  private fromShell = false;
  mode: 'redis' | 'shell' = 'redis';
  private shellInstance: HostShell | null = null;

  constructor(
    o: CliOptions,
    private readonly io: CliIO,
    private readonly onTerminal: boolean,
  ) {
    this.world = new World({ seed: o.seed });
    this.world.addHost(HOST, 'metal');
    installRedisHost(this.world, HOST);
    this.world.startRedis(HOST, { port: o.port, config: { dir: '/var/lib/redis' } });
    this.pump = new NodeWorldDriver(this.world);
    this.pump.start();
    this.main = this.newSession(HOST, o.host, o.port, o.db, o.resp3, o.output);
    this.session = this.main;
  }

  private write(bytes: string): void {
    this.io.stdout.write(Buffer.from(bytes, 'latin1'));
  }

  private newSession(toHost: string, shownHost: string, port: number | string, db: number, resp3: boolean, output: OutputMode | null): RedisCliRepl {
    const from = this.shellInstance?.hostName ?? HOST;
    return new RedisCliRepl({
      connect: () => this.link(from, toHost, port),
      host: shownHost,
      port: typeof port === 'number' ? port : 0,
      output: output ?? (this.onTerminal ? 'tty' : 'raw'),
      showPushes: this.onTerminal,
      resp3,
      db,
      write: (bytes) => this.write(bytes),
      writeError: (text) => void this.io.stderr.write(Buffer.from(text, 'latin1')),
      // redis-cli times a slow command by the clock of the machine it runs on.
      nowMs: () => this.world.kernel.now / 1000,
    });
  }

  /** A connection through the simulated network; what it sends wakes the world at once. */
  private link(from: string, to: string, port: number | string): CliLink {
    let link: SessionLink | null = null;
    this.pump.input(() => (link = new SessionLink(this.world, from, `${to}:${port}`)));
    const l = link!;
    return {
      send: (argv) => this.pump.input(() => l.send(argv)),
      read: () => l.read(),
      close: () => this.pump.input(() => l.close()),
      get closed() {
        return l.closed;
      },
    };
  }

  get shell(): HostShell {
    if (this.shellInstance === null) {
      this.shellInstance = new HostShell(this.world, HOST, (text) => this.write(text), {
        driver: this.pump.driver,
        columns: (this.io.stdout as { columns?: number }).columns ?? 80,
        onExit: () => {
          this.mode = 'redis';
          return true;
        },
        onRedisCli: (target) => this.openFromShell(target),
      });
    }
    return this.shellInstance;
  }

  /** `redis-cli` in the shell: a session to that server, which `quit` leaves for the shell. */
  private openFromShell(t: RedisCliTarget): boolean {
    const output = t.raw === null ? null : t.raw ? 'raw' : 'tty';
    this.session = this.newSession(t.host, t.shownHost, t.port, t.db, t.resp3, output);
    // redis-cli connects before its first prompt.
    void this.session.connect();
    this.fromShell = true;
    this.mode = 'redis';
    return true;
  }

  get prompt(): string {
    return this.mode === 'shell' ? this.shell.prompt : this.session.prompt;
  }

  /** Whether the current line's program can take Ctrl-C rather than the terminal. */
  get shellBusy(): boolean {
    return this.mode === 'shell' && this.shellInstance !== null && this.shellInstance.busy;
  }

  /** Runs a line as typed (UTF-8 bytes): a terminal command, a shell line, or a redis-cli line. */
  async runLine(line: string): Promise<LineResult> {
    const trimmed = line.trim();
    if (trimmed === ':shell') {
      this.mode = 'shell';
      void this.shell;
      return { history: true };
    }
    if (trimmed === ':redis') {
      this.mode = 'redis';
      return { history: true };
    }
    if (this.mode === 'shell') {
      await this.runShell(line);
      return { history: true };
    }
    if (line.startsWith('!')) {
      await this.runShell(line.slice(1));
      return { history: true };
    }
    if (this.fromShell) {
      const r = await this.session.runLine(line);
      if (r.exit !== undefined) {
        // Leaving a redis-cli started in the shell goes back to the shell.
        this.session = this.main;
        this.fromShell = false;
        this.mode = 'shell';
        return { history: r.history };
      }
      return r;
    }
    return this.session.runLine(line);
  }

  /** Runs a shell line and waits until its program, if it takes time, has ended. */
  private runShell(line: string): Promise<void> {
    return this.shell.runUntilIdle(line, (run) => this.pump.input(run));
  }

  /** Ctrl-C while a shell program runs. */
  interruptShell(): void {
    this.pump.input(() => this.shell.interrupt());
  }

  stop(): void {
    this.pump.stop();
  }
}

/** Lines from a pipe: no prompt, no history, each line run in turn. */
async function piped(terminal: WorldTerminal, io: CliIO): Promise<number> {
  let pending = '';
  for await (const chunk of io.stdin) {
    pending += (chunk as Buffer).toString('latin1');
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      const r = await terminal.runLine(line);
      if (r.exit !== undefined) return r.exit;
    }
  }
  if (pending !== '') {
    const r = await terminal.runLine(pending);
    if (r.exit !== undefined) return r.exit;
  }
  return 0;
}

/**
 * redis-cli's grey hints on Node's readline: drawn after each key readline
 * has handled, and cleared before Enter so the line stays as typed.
 */
function showHints(rl: Interface, input: TtyInput, terminal: WorldTerminal, io: CliIO): () => void {
  const state = (): PromptLine => ({
    line: rl.line,
    cursor: rl.cursor,
    promptWidth: rl.getPrompt().length,
    cols: (io.stdout as { columns?: number }).columns ?? 80,
  });
  const on = (): boolean => terminal.mode === 'redis' && terminal.session.hints;
  const paint = (): void => {
    if (!on()) return;
    const p = state();
    // A line past the prompt's row shows no hint: not worth working one out for a long paste.
    io.stdout.write(hintPainting(p, p.promptWidth + p.line.length < p.cols ? redisCliHint(p.line) : null));
  };
  input.prependListener('keypress', (_s: string, key: { name?: string } | undefined) => {
    if (key?.name === 'return' || key?.name === 'enter') io.stdout.write(hintClearing(state()));
  });
  input.on('keypress', (_s: string, key: { name?: string } | undefined) => {
    if (key?.name !== 'return' && key?.name !== 'enter') paint();
  });
  return paint;
}

/** The interactive loop: line editing, history, Ctrl-C as redis-cli treats it (and as bash does in the shell). */
function interactive(terminal: WorldTerminal, io: CliIO): Promise<number> {
  const path = historyPath(io.env);
  const saved = loadHistory(path);
  io.stdout.write(BANNER + HINT);
  return new Promise((resolve) => {
    // A paste goes into the line in one piece (readline alone takes minutes over 200 KB), then the hint is drawn.
    const input = pasteAwareInput(io.stdin, (text) => {
      insertIntoLine(rl, text);
      paintHint();
    });
    const rl: Interface = createInterface({
      // readline on a terminal uses only its input's events and switches (pasteAwareInput's).
      input: input as unknown as NodeJS.ReadableStream,
      output: io.stdout,
      terminal: true,
      history: [...saved].reverse(),
      historySize: HISTORY_MAX_LINES,
      completer: (line: string): [string[], string] => (terminal.mode === 'redis' ? redisCliCompleter(line) : [[], line]),
      prompt: bytesToUtf8(terminal.prompt),
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
      input.detach();
      resolve(status);
    };
    const pump = async (): Promise<void> => {
      if (running) return;
      running = true;
      while (queue.length !== 0 && !finished) {
        const line = queue.shift()!;
        const r = await terminal.runLine(utf8ToBytes(line));
        if (!r.history && history[0] === line) history.shift();
        saveHistory(path, [...history].reverse());
        if (r.exit !== undefined) {
          finish(r.exit);
          break;
        }
      }
      running = false;
      if (!finished) {
        rl.setPrompt(bytesToUtf8(terminal.prompt));
        rl.prompt();
      }
    };
    rl.on('line', (line) => {
      queue.push(line);
      void pump();
    });
    rl.on('SIGINT', () => {
      // In the shell, Ctrl-C goes to the running program, or starts a new
      // line at the prompt, as in bash.
      if (terminal.mode === 'shell') {
        if (terminal.shellBusy) terminal.interruptShell();
        else {
          io.stdout.write('^C\n');
          rl.prompt();
        }
        return;
      }
      // At the prompt Ctrl-C leaves; while MONITOR or SUBSCRIBE run it ends
      // them; during any other command redis-cli exits with status 1.
      if (!running) finish(0);
      else if (terminal.session.interrupt() === 'exit') finish(1);
    });
    rl.on('close', () => finish(0));
    const paintHint = showHints(rl, input, terminal, io);
    rl.setPrompt(bytesToUtf8(terminal.prompt));
    rl.prompt();
  });
}
