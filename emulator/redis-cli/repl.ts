import { splitArgs } from '../resp/split-args.js';
import { ErrorReply, NullArrayReply, PushReply, type Reply } from '../resp/reply.js';
import { formatReply, UnknownReplyTypeError, type OutputMode } from './format.js';
import { isSensitiveCommand, parseRepeat, printsVerbatim } from './command-rules.js';
import { CLOSED, type CliLink } from './link.js';
import { asciiLower } from '../resp/bytes.js';
import { cString } from '../numbers/c-string.js';

export interface RedisCliReplOptions {
  /** Opens a new connection to the server. */
  connect(): CliLink;
  /** The address the prompt shows. */
  host?: string;
  port?: number;
  /** How replies are printed: 'tty' (redis-cli's default on a terminal) or 'raw' (--raw). */
  output?: OutputMode;
  /**
   * Print RESP3 pushes that arrive between replies (redis-cli's
   * --show-pushes, on by default when its output is a terminal); otherwise
   * they are dropped.
   */
  showPushes?: boolean;
  /** Speak RESP3 (redis-cli -3): HELLO 3 on every connection. */
  resp3?: boolean;
  /** The database to select on connection (redis-cli -n). */
  db?: number;
  /** Standard output: a byte string, written as is. */
  write(bytes: string): void;
  /** Standard error. */
  writeError(text: string): void;
  /** Where `help` goes, with its colours (by default through write). */
  writeHelp?(text: string): void;
  /** Milliseconds, for the "(1.25s)" line redis-cli prints after a slow command. */
  nowMs?(): number;
}

/** What became of one line. */
export interface LineResult {
  /** Whether the line goes into the history (lines with passwords do not). */
  history: boolean;
  /** Set when the terminal should end, with this exit status. */
  exit?: number;
}

/** Commands whose replies never end: the terminal only prints what arrives. */
type StreamingMode = 'pubsub' | 'monitor';

/**
 * What redis-cli remembers between lines, as plain data: a terminal saved
 * with its world takes up its connection again in the same state (the
 * database in the prompt, "(TX)" inside MULTI).
 */
export interface CliState {
  readonly output: OutputMode;
  readonly resp3: boolean;
  readonly dbnum: number;
  readonly inputDbnum: number;
  readonly inMulti: boolean;
  readonly preMultiDbnum: number;
  /** Whether a connection was open (the prompt shows "not connected>" otherwise). */
  readonly connected: boolean;
  /** Whether it was printing a pub/sub or MONITOR stream. */
  readonly streaming: boolean;
}

/**
 * redis-cli 7.0's interactive loop (src/redis-cli.c repl, cliSendCommand,
 * cliReadReply) without the terminal: a line in, the exact output redis-cli
 * would print out, and the prompt to show next. The Node terminal and the
 * web terminal both drive it.
 *
 *   const s = new RedisCliRepl({ connect: () => new InProcessLink(server), write, writeError });
 *   s.prompt;                         // '127.0.0.1:6379> '
 *   await s.runLine('SELECT 2');      // writes 'OK\n'
 *   s.prompt;                         // '127.0.0.1:6379[2]> '
 */
export class RedisCliRepl {
  private link: CliLink | null = null;
  private readonly host: string;
  private readonly port: number;
  output: OutputMode;
  /** Whether the terminal shows grey argument hints (`:set hints`, `:set nohints`; on by default). */
  hints = true;
  private resp3: boolean;
  /** The database the prompt shows (config.dbnum) and the one to select on connect (input_dbnum). */
  private dbnum = 0;
  private inputDbnum: number;
  private inMulti = false;
  private preMultiDbnum = 0;
  private streaming: StreamingMode | null = null;
  private interrupted = false;

  constructor(private readonly opts: RedisCliReplOptions) {
    this.host = opts.host ?? '127.0.0.1';
    this.port = opts.port ?? 6379;
    this.output = opts.output ?? 'tty';
    this.resp3 = opts.resp3 ?? false;
    this.inputDbnum = opts.db ?? 0;
  }

  /** The prompt redis-cli shows now: "127.0.0.1:6379[2](TX)> ". */
  get prompt(): string {
    if (this.link === null) return 'not connected> ';
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `${host}:${this.port}${this.dbnum !== 0 ? `[${this.dbnum}]` : ''}${this.inMulti ? '(TX)' : ''}> `;
  }

  /** Whether a command is running (Ctrl-C then interrupts it rather than the terminal). */
  get busy(): boolean {
    return this.streaming !== null;
  }

  /** The state to save; see adopt(). */
  state(): CliState {
    return {
      output: this.output,
      resp3: this.resp3,
      dbnum: this.dbnum,
      inputDbnum: this.inputDbnum,
      inMulti: this.inMulti,
      preMultiDbnum: this.preMultiDbnum,
      connected: this.link !== null,
      streaming: this.streaming !== null,
    };
  }

  /**
   * Takes up a connection that is already set up, in a saved state (a
   * terminal restored with its world): nothing is sent. With a null link
   * the session is not connected and connects at its next command.
   */
  adopt(link: CliLink | null, state: CliState): void {
    this.link = link;
    this.output = state.output;
    this.resp3 = state.resp3;
    this.dbnum = state.dbnum;
    this.inputDbnum = state.inputDbnum;
    this.inMulti = state.inMulti;
    this.preMultiDbnum = state.preMultiDbnum;
  }

  /**
   * Connects (redis-cli connects before showing its first prompt). Returns
   * false, after printing why, when the connection could not be set up.
   */
  async connect(): Promise<boolean> {
    if (this.link !== null) return true;
    this.link = this.opts.connect();
    // cliSelect: only when the database asked for differs from the one shown.
    if (this.inputDbnum !== this.dbnum) {
      const r = await this.call(['SELECT', String(this.inputDbnum)]);
      if (r === CLOSED) return this.lost();
      if (r instanceof ErrorReply) {
        this.opts.writeError(`SELECT ${this.inputDbnum} failed: ${cString(r.message)}\n`);
        return false;
      }
      this.dbnum = this.inputDbnum;
    }
    if (this.resp3) {
      const r = await this.call(['HELLO', '3']);
      if (r === CLOSED) return this.lost();
      if (r instanceof ErrorReply) {
        this.opts.writeError(`HELLO 3 failed: ${cString(r.message)}\n`);
        return false;
      }
    }
    return true;
  }

  /**
   * Ctrl-C while a command runs. In pub/sub or MONITOR mode redis-cli drops
   * the connection and carries on with a new one; otherwise it exits with
   * status 1. Returns what the terminal should do.
   */
  interrupt(): 'continue' | 'exit' {
    if (this.streaming === null) return 'exit';
    this.interrupted = true;
    this.link?.close();
    return 'continue';
  }

  /**
   * Runs one line as redis-cli's interactive loop does. The line is a byte
   * string: what was typed, as UTF-8 bytes (utf8ToBytes).
   */
  async runLine(line: string): Promise<LineResult> {
    const argv = splitArgs(line);
    if (argv === null) {
      this.opts.write('Invalid argument(s)\n');
      return { history: true };
    }
    if (argv.length === 0) return { history: false };
    let repeat = 1;
    let args = argv;
    const count = parseRepeat(argv);
    if (count === 'invalid') {
      this.opts.write('Invalid redis-cli repeat command option value.\n');
      return { history: false };
    }
    if (count !== null) {
      repeat = count;
      args = argv.slice(1);
    }
    const history = !isSensitiveCommand(args);
    const first = lower(argv[0]!);
    if (first === 'quit' || first === 'exit') return { history, exit: 0 };
    if (argv[0]![0] === ':') {
      this.preference(argv);
      return { history };
    }
    if (first === 'restart') {
      this.opts.write("Use 'restart' only in Lua debugging mode.\n");
      return { history };
    }
    if (argv.length === 1 && first === 'clear') {
      this.opts.write('\x1b[H\x1b[2J');
      return { history };
    }
    const start = this.opts.nowMs?.();
    const exit = await this.issue(args, repeat);
    if (exit !== undefined) return { history, exit };
    if (start !== undefined && this.output === 'tty') {
      const elapsedMs = this.opts.nowMs!() - start;
      if (elapsedMs >= 500) this.opts.write(`(${(elapsedMs / 1000).toFixed(2)}s)\n`);
    }
    return { history };
  }

  /**
   * Runs a command given as words, as `redis-cli GET k` does without an
   * interactive loop. Returns the exit status.
   */
  async runCommand(argv: string[], repeat = 1): Promise<number> {
    if (!(await this.connect())) return 1;
    const exit = await this.issue(argv, repeat);
    return exit ?? (this.link === null ? 1 : 0);
  }

  /** SHUTDOWN was sent on some connection of this session (redis-cli's config.shutdown). */
  private shutdownSent = false;

  /** `:set hints` and friends: the terminal's own settings. */
  private preference(argv: string[]): void {
    if (lower(argv[0]!) === ':set' && argv.length >= 2) {
      const p = lower(argv[1]!);
      if (p === 'hints' || p === 'nohints') this.hints = p === 'hints';
      else this.opts.write(`unknown redis-cli preference '${cString(argv[1]!)}'\n`);
      return;
    }
    this.opts.write(`unknown redis-cli internal command '${cString(argv[0]!)}'\n`);
  }

  /** issueCommandRepeat: help, reconnection, then the command `repeat` times. */
  private async issue(argv: string[], repeat: number): Promise<number | undefined> {
    const name = lower(argv[0]!);
    if (name === 'help' || name === '?') {
      // The help table (every command's documentation) is read on first use.
      const { helpText } = await import('./help.js');
      (this.opts.writeHelp ?? this.opts.write)(helpText(argv.slice(1)));
      return undefined;
    }
    // A connection the server has closed is only noticed when the next
    // command finds it closed; redis-cli reconnects on the command after.
    if (this.link === null && !(await this.connect())) return undefined;
    for (let i = 0; i < repeat; i++) {
      const ok = await this.send(argv);
      if (ok === 'exit') return 1;
      if (!ok) {
        this.opts.writeError('Error: Server closed the connection\n');
        this.link = null;
        return undefined;
      }
    }
    return undefined;
  }

  /** cliSendCommand: sends, prints the reply (or the stream of them), follows SELECT/MULTI/EXEC. */
  private async send(argv: string[]): Promise<boolean | 'exit'> {
    const name = lower(argv[0]!);
    const verbatim = printsVerbatim(argv);
    if (name === 'monitor') this.streaming = 'monitor';
    if (name === 'subscribe' || name === 'psubscribe' || name === 'ssubscribe') this.streaming = 'pubsub';
    const link = this.link!;
    // redis-cli remembers for good that it sent SHUTDOWN: from then on a
    // connection found closed is dropped without a word (config.shutdown).
    if (name === 'shutdown') this.shutdownSent = true;
    link.send(argv);

    if (this.streaming !== null) {
      const mode = this.streaming;
      if (mode === 'pubsub' && this.output !== 'raw') this.opts.write('Reading messages... (press Ctrl-C to quit)\n');
      try {
        for (;;) {
          const r = await link.read();
          if (r === CLOSED) {
            if (this.interrupted) {
              // Ctrl-C: a fresh connection, as redis-cli makes after aborting.
              this.interrupted = false;
              this.link = null;
              this.dbnum = 0;
              this.inMulti = false;
              await this.connect();
              return true;
            }
            return false;
          }
          if (!this.print(r, verbatim)) return 'exit';
          if (r instanceof ErrorReply) return true;
        }
      } finally {
        this.streaming = null;
      }
    }

    let r: Reply | typeof CLOSED;
    for (;;) {
      r = await link.read();
      // Out-of-band pushes (client tracking) are not the reply: they are
      // printed as they come, or dropped, and the reply is still awaited.
      if (r instanceof PushReply) {
        if (this.opts.showPushes ?? this.output === 'tty') this.printPush(r);
        continue;
      }
      break;
    }
    if (r === CLOSED) {
      if (!this.shutdownSent) return false;
      this.link = null;
      return true;
    }
    if (!this.print(r, verbatim)) return 'exit';
    this.follow(argv, r);
    return true;
  }

  /** Prints a reply; false when redis-cli would die on it (a type it cannot print). */
  private print(r: Reply, verbatim: boolean): boolean {
    try {
      this.opts.write(formatReply(r, this.output, verbatim));
      return true;
    } catch (e) {
      if (!(e instanceof UnknownReplyTypeError)) throw e;
      this.opts.writeError(e.message + '\n');
      return false;
    }
  }

  private printPush(r: PushReply): void {
    const keys = r.items[1];
    if (this.output === 'tty' && r.items.length === 2 && typeof r.items[0] === 'string' && r.items[0].startsWith('invalidate') && Array.isArray(keys)) {
      this.opts.write(`-> invalidate: ${keys.map((k) => `'${cString(String(k))}'`).join(', ')}\n`);
      return;
    }
    this.print(r, false);
  }

  /** What redis-cli remembers from a reply: the database and the transaction state. */
  private follow(argv: string[], r: Reply): void {
    const name = lower(argv[0]!);
    const failed = r instanceof ErrorReply;
    if (name === 'select' && argv.length === 2 && !failed) {
      this.dbnum = this.inputDbnum = atoi(argv[1]!);
    } else if (name === 'multi' && argv.length === 1 && !failed) {
      this.inMulti = true;
      this.preMultiDbnum = this.dbnum;
    } else if (name === 'exec' && argv.length === 1 && this.inMulti) {
      this.inMulti = false;
      // A SELECT queued in an aborted transaction never happened.
      if (failed || r === null || r instanceof NullArrayReply) this.dbnum = this.inputDbnum = this.preMultiDbnum;
    } else if (name === 'discard' && argv.length === 1 && !failed) {
      this.inMulti = false;
      this.dbnum = this.inputDbnum = this.preMultiDbnum;
    } else if (name === 'reset' && argv.length === 1 && !failed) {
      this.inMulti = false;
      this.dbnum = this.inputDbnum = 0;
      this.resp3 = false;
    }
  }

  /** Sends one command and waits for its reply, for the connection set-up. */
  private call(argv: string[]): Promise<Reply | typeof CLOSED> {
    this.link!.send(argv);
    return this.link!.read();
  }

  private lost(): false {
    this.link = null;
    this.opts.writeError('\nI/O error\n');
    return false;
  }
}

/** strcasecmp's view of a word: up to its first NUL, ASCII lower case. */
function lower(s: string): string {
  return asciiLower(cString(s));
}

/** C's atoi: leading blanks, a sign, digits; anything else ends it; 0 if none. */
function atoi(s: string): number {
  const m = /^[\t\n\v\f\r ]*([+-]?\d+)/.exec(cString(s));
  return m ? Number(BigInt.asIntN(32, BigInt(m[1]!))) : 0;
}
