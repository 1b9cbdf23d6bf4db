import { asciiLower } from '../resp/bytes.js';
import { atoi } from './c-format.js';
import { BENCHMARK_USAGE } from './benchmark-usage.js';

/**
 * redis-benchmark's command line, parsed the way the 7.0.15 tool parses it
 * (src/redis-benchmark.c parseOptions): numbers through C's atoi, the same
 * clamps, the same "Invalid option" message and usage text.
 *
 *   parseBenchmarkArgs(['-c', '1', '-q'])      // { clients: 1, quiet: true, ... }
 *   parseBenchmarkArgs(['-c'])                 // { error: 'Invalid option "-c" or option argument missing\n\n...', exitCode: 1 }
 */
export interface BenchmarkOptions {
  /** -h: the server's host; in the simulated world a host name ('A'), or 127.0.0.1 / localhost for the tool's own host. */
  host: string;
  /** -p */
  port: number;
  /** -s: a Unix socket path on the tool's own host; overrides host and port. */
  socket: string | null;
  /** -a */
  password: string | null;
  /** --user: with -a, AUTH is sent as AUTH user password. */
  user: string | null;
  /** -c, as given; at least one connection is opened whatever it says. */
  clients: number;
  /** -n */
  requests: number;
  /** -d, clamped to 1 byte .. 1 GB; with a command line, the formatted command's length. */
  dataSize: number;
  /** --dbnum (or the path of -u): a SELECT is sent first on each connection when not 0. */
  dbnum: number;
  /** -3: each connection starts with HELLO 3. */
  resp3: boolean;
  /** --threads: event loops on threads of their own; 0 is the single loop. */
  threads: number;
  /** --enable-tracking: each connection starts with CLIENT TRACKING on. */
  tracking: boolean;
  /** -k: printed as given; 0 opens a new connection for every request. */
  keepAlive: number;
  /** -r was given: __rand_int__ in a command is replaced for every request. */
  randomKeys: boolean;
  /** -r's value: random numbers are drawn in [0, keyspaceLen). */
  keyspaceLen: number;
  /** -P */
  pipeline: number;
  quiet: boolean;
  csv: boolean;
  /** -l: run the tests again and again until stopped. */
  loop: boolean;
  /** -I: open the connections and wait. */
  idle: boolean;
  /** -x: the command's last argument comes from standard input (empty here). */
  stdinArg: boolean;
  /** --cluster */
  cluster: boolean;
  /** -t as the tool keeps it: lower-cased, with a comma on each side. */
  tests: string | null;
  /** --precision: significant figures of the latency histogram (1..4; 0 crashes the real tool). */
  precision: number;
  /** A command line to benchmark instead of the test suite. */
  command: string[];
  /** Lines the tool writes to standard error while parsing. */
  warnings: string[];
}

/**
 * What the tool prints before it exits instead of running: usage or
 * version on standard output, a malformed -u or an unsupported option on
 * standard error.
 */
export interface BenchmarkArgsExit {
  error: string;
  exitCode: number;
  stream: 'stdout' | 'stderr';
}

export const BENCHMARK_VERSION = '7.0.15';
const DEFAULT_PRECISION = 3;
const MAX_PRECISION = 4;
const MAX_THREADS = 500;

/** Options of the real tool that this simulation cannot honour (TLS). */
const TLS_FLAGS = new Set(['--tls', '--insecure']);
const TLS_FLAGS_WITH_ARG = new Set(['--sni', '--cacertdir', '--cacert', '--cert', '--key', '--tls-ciphers', '--tls-ciphersuites']);

export function defaultBenchmarkOptions(): BenchmarkOptions {
  return {
    host: '127.0.0.1',
    port: 6379,
    socket: null,
    password: null,
    user: null,
    clients: 50,
    requests: 100000,
    dataSize: 3,
    dbnum: 0,
    resp3: false,
    threads: 0,
    tracking: false,
    keepAlive: 1,
    randomKeys: false,
    keyspaceLen: 0,
    pipeline: 1,
    quiet: false,
    csv: false,
    loop: false,
    idle: false,
    stdinArg: false,
    cluster: false,
    tests: null,
    precision: DEFAULT_PRECISION,
    command: [],
    warnings: [],
  };
}

/**
 * Parses the arguments after the program's name (a leading
 * 'redis-benchmark' is skipped). Returns the options, or what the tool
 * prints before exiting: --help and --version exit 0, a bad option exits 1
 * after its message and the usage, and options the simulation does not
 * support exit 1 with a line saying so.
 */
export function parseBenchmarkArgs(argv: readonly string[]): BenchmarkOptions | BenchmarkArgsExit {
  const args = argv[0] === 'redis-benchmark' ? argv.slice(1) : argv;
  const o = defaultBenchmarkOptions();
  const invalid = (arg: string): BenchmarkArgsExit => ({
    error: `Invalid option "${arg}" or option argument missing\n\n${BENCHMARK_USAGE}`,
    exitCode: 1,
    stream: 'stdout',
  });
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    const last = i === args.length - 1;
    const value = (): string => args[++i]!;
    switch (a) {
      case '-c':
        if (last) return invalid(a);
        o.clients = atoi(value());
        continue;
      case '-v':
      case '--version':
        return { error: `redis-benchmark ${BENCHMARK_VERSION}\n`, exitCode: 0, stream: 'stdout' };
      case '-n':
        if (last) return invalid(a);
        o.requests = atoi(value());
        continue;
      case '-k':
        if (last) return invalid(a);
        o.keepAlive = atoi(value());
        continue;
      case '-h':
        if (last) return invalid(a);
        o.host = value();
        continue;
      case '-p':
        if (last) return invalid(a);
        o.port = atoi(value());
        continue;
      case '-s':
        if (last) return invalid(a);
        o.socket = value();
        continue;
      case '-x':
        o.stdinArg = true;
        continue;
      case '-a':
        if (last) return invalid(a);
        o.password = value();
        continue;
      case '--user':
        if (last) return invalid(a);
        o.user = value();
        continue;
      case '-3':
        o.resp3 = true;
        continue;
      case '-d':
        if (last) return invalid(a);
        o.dataSize = Math.min(1024 * 1024 * 1024, Math.max(1, atoi(value())));
        continue;
      case '-P':
        if (last) return invalid(a);
        o.pipeline = Math.max(1, atoi(value()));
        continue;
      case '-r': {
        if (last) return invalid(a);
        const next = value();
        // A negative count is allowed only when a digit follows the sign.
        if (next[0] === '-' && !(next.charCodeAt(1) >= 48 && next.charCodeAt(1) <= 57)) return invalid(next);
        o.randomKeys = true;
        o.keyspaceLen = Math.max(0, atoi(next));
        continue;
      }
      case '-q':
        o.quiet = true;
        continue;
      case '--csv':
        o.csv = true;
        continue;
      case '-l':
        o.loop = true;
        continue;
      case '-I':
        o.idle = true;
        continue;
      case '-e':
        o.warnings.push('WARNING: -e option has no effect. We now immediately exit on error to avoid false results.\n');
        continue;
      case '-t':
        if (last) return invalid(a);
        o.tests = `,${asciiLower(value())},`;
        continue;
      case '--dbnum':
        if (last) return invalid(a);
        o.dbnum = atoi(value());
        continue;
      case '--precision': {
        if (last) return invalid(a);
        const p = atoi(value());
        o.precision = p < 0 ? DEFAULT_PRECISION : Math.min(p, MAX_PRECISION);
        continue;
      }
      case '--threads': {
        if (last) return invalid(a);
        const n = atoi(value());
        if (n > MAX_THREADS) {
          o.warnings.push(`WARNING: Too many threads, limiting threads to ${MAX_THREADS}.\n`);
          o.threads = MAX_THREADS;
        } else o.threads = Math.max(0, n);
        continue;
      }
      case '--cluster':
        o.cluster = true;
        continue;
      case '--enable-tracking':
        o.tracking = true;
        continue;
      case '--help':
        return { error: BENCHMARK_USAGE, exitCode: 0, stream: 'stdout' };
    }
    if (a === '-u' && !last) {
      const failure = applyUri(o, value());
      if (failure !== null) return failure;
      continue;
    }
    if (TLS_FLAGS.has(a) || TLS_FLAGS_WITH_ARG.has(a)) {
      if (TLS_FLAGS_WITH_ARG.has(a) && last) return invalid(a);
      return { error: `redis-benchmark: ${a}: TLS is not available in the simulated world\n`, exitCode: 1, stream: 'stderr' };
    }
    // Anything else that looks like an option is a mistake; otherwise the
    // rest of the line is a command to benchmark.
    if (a.startsWith('-')) return invalid(a);
    break;
  }
  o.command = args.slice(i);
  return o;
}

/**
 * -u redis://[[user:]password@][host[:port]][/db], as the tools' shared
 * parser reads it (src/cli_common.c parseRedisUri).
 */
function applyUri(o: BenchmarkOptions, uri: string): BenchmarkArgsExit | null {
  let rest: string;
  if (asciiLower(uri).startsWith('rediss://')) {
    return { error: 'redis-benchmark: rediss://: TLS is not available in the simulated world\n', exitCode: 1, stream: 'stderr' };
  } else if (asciiLower(uri).startsWith('redis://')) rest = uri.slice('redis://'.length);
  else return { error: 'Invalid URI scheme\n', exitCode: 1, stream: 'stderr' };
  if (rest === '') return null;
  const at = rest.indexOf('@');
  if (at !== -1) {
    const colon = rest.indexOf(':');
    let passwordStart = 0;
    if (colon !== -1 && colon < at) {
      const user = percentDecode(rest.slice(0, colon));
      if (typeof user !== 'string') return user;
      o.user = user;
      passwordStart = colon + 1;
    }
    const password = percentDecode(rest.slice(passwordStart, at));
    if (typeof password !== 'string') return password;
    o.password = password;
    rest = rest.slice(at + 1);
  }
  if (rest === '') return null;
  const slash = rest.indexOf('/');
  if (!rest.startsWith('/')) {
    const authority = slash === -1 ? rest : rest.slice(0, slash);
    // The port is whatever follows the first colon of the rest of the line.
    const colon = rest.indexOf(':');
    if (colon !== -1) {
      o.port = atoi(rest.slice(colon + 1));
      o.host = rest.slice(0, colon);
    } else o.host = authority;
  }
  rest = slash === -1 ? '' : rest.slice(slash + 1);
  if (rest === '') return null;
  o.dbnum = atoi(rest);
  return null;
}

function percentDecode(s: string): string | BenchmarkArgsExit {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '%') {
      out += s[i];
      continue;
    }
    if (s.length - i < 2) return { error: 'Incomplete URI encoding\n', exitCode: 1, stream: 'stderr' };
    const h = asciiLower(s[i + 1] ?? '');
    const l = asciiLower(s[i + 2] ?? '');
    if (!/^[0-9a-f]$/.test(h) || !/^[0-9a-f]$/.test(l)) return { error: 'Illegal character in URI encoding\n', exitCode: 1, stream: 'stderr' };
    out += String.fromCharCode(parseInt(h + l, 16));
    i += 2;
  }
  return out;
}

export function isBenchmarkArgsExit(x: BenchmarkOptions | BenchmarkArgsExit): x is BenchmarkArgsExit {
  return 'error' in x;
}
