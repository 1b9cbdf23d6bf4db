import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { parseBenchmarkArgs, type BenchmarkOptions } from '../../../emulator/programs/benchmark-args.js';
import { startBenchmark, type BenchmarkProcess } from '../../../emulator/programs/redis-benchmark.js';
import { BENCHMARK_USAGE } from '../../../emulator/programs/benchmark-usage.js';
import { RequestParser } from '../../../emulator/resp/request-parser.js';

/** Host A (the book's Core 2 Duo) runs redis-server; 'app' is a second machine on the LAN. */
function world(seed = 1, config: Record<string, string> = {}) {
  const w = new World({ seed });
  w.addHost('A', 'core2duo');
  w.addHost('app', 'core2duo');
  w.link('app', 'A', 'lan');
  const server = w.startRedis('A', { config, unixSocket: '/tmp/redis.sock' });
  w.trace.commands = false;
  return { w, server };
}

interface Ran {
  p: BenchmarkProcess;
  out: string;
  err: string;
}

function bench(w: World, args: string[], from = 'A', maxMs = 600_000): Ran {
  let out = '';
  let err = '';
  const p = startBenchmark(w, from, args, (t) => (out += t), { err: (t) => (err += t) });
  w.runUntil(() => !p.alive || p.stuck, { maxMs });
  return { p, out, err };
}

/** What a terminal shows: each line as its last carriage return leaves it. */
function screen(out: string): string[] {
  return out.split('\n').map((line) => line.slice(line.lastIndexOf('\r') + 1));
}

function parsed(args: string[]): BenchmarkOptions {
  const o = parseBenchmarkArgs(args);
  if ('error' in o) throw new Error(o.error);
  return o;
}

const ALL_TITLES = [
  'PING_INLINE',
  'PING_MBULK',
  'SET',
  'GET',
  'INCR',
  'LPUSH',
  'RPUSH',
  'LPOP',
  'RPOP',
  'SADD',
  'HSET',
  'SPOP',
  'ZADD',
  'ZPOPMIN',
  'LPUSH (needed to benchmark LRANGE)',
  'LRANGE_100 (first 100 elements)',
  'LRANGE_300 (first 300 elements)',
  'LRANGE_500 (first 500 elements)',
  'LRANGE_600 (first 600 elements)',
  'MSET (10 keys)',
];

const NUM2 = String.raw`(?:\d+\.\d{2}|inf)`;
const NUM3 = String.raw`\d+\.\d{3}`;

describe('redis-benchmark arguments', () => {
  it('defaults are the real tool defaults', () => {
    const o = parsed([]);
    expect(o).toMatchObject({
      host: '127.0.0.1',
      port: 6379,
      socket: null,
      clients: 50,
      requests: 100000,
      dataSize: 3,
      keepAlive: 1,
      pipeline: 1,
      randomKeys: false,
      quiet: false,
      csv: false,
      tests: null,
      precision: 3,
      threads: 0,
      dbnum: 0,
      command: [],
    });
  });

  it('every flag is read, numbers through atoi with the real clamps', () => {
    const o = parsed(['-h', 'A', '-p', '6380', '-c', '1', '-n', '500', '-d', '0', '-P', '-3', '-r', '1000', '-q', '--csv', '-t', 'SET,Get', '-k', '0', '--precision', '9', '--threads', '2', '--dbnum', '3', '-a', 'pw', '--user', 'u', '-l', '-3']);
    expect(o).toMatchObject({ host: 'A', port: 6380, clients: 1, requests: 500, dataSize: 1, pipeline: 1, randomKeys: true, keyspaceLen: 1000 });
    expect(o).toMatchObject({ quiet: true, csv: true, tests: ',set,get,', keepAlive: 0, precision: 4, threads: 2, dbnum: 3, password: 'pw', user: 'u', loop: true, resp3: true });
    expect(parsed(['-s', '/tmp/redis.sock']).socket).toBe('/tmp/redis.sock');
    expect(parsed(['-r', '-5']).keyspaceLen).toBe(0);
    expect(parsed(['-c', 'abc']).clients).toBe(0);
    expect(parsed(['--precision', '-1']).precision).toBe(3);
    expect(parsed(['-d', '5000000000']).dataSize).toBe(705032704);
    expect(parsed(['-d', '2000000000']).dataSize).toBe(1024 * 1024 * 1024);
  });

  it('the rest of the line is a command to benchmark', () => {
    expect(parsed(['-n', '10', 'lpush', 'mylist', '__rand_int__']).command).toEqual(['lpush', 'mylist', '__rand_int__']);
    expect(parsed(['redis-benchmark', '-q']).quiet).toBe(true);
  });

  it('-u fills host, port, password and database', () => {
    expect(parsed(['-u', 'redis://user:p%40ss@A:6380/2'])).toMatchObject({ user: 'user', password: 'p@ss', host: 'A', port: 6380, dbnum: 2 });
    expect(parseBenchmarkArgs(['-u', 'http://A'])).toEqual({ error: 'Invalid URI scheme\n', exitCode: 1, stream: 'stderr' });
  });

  // Real: `redis-benchmark --bogus` prints 'Invalid option "--bogus" or option
  // argument missing', a blank line and the usage, on stdout, and exits 1.
  it('a bad option or a missing argument prints the usage and exits 1', () => {
    for (const [args, shown] of [[['--bogus'], '--bogus'], [['-c'], '-c'], [['-r', '-x'], '-x'], [['-q', '-u'], '-u']] as const) {
      expect(parseBenchmarkArgs(args)).toEqual({
        error: `Invalid option "${shown}" or option argument missing\n\n${BENCHMARK_USAGE}`,
        exitCode: 1,
        stream: 'stdout',
      });
    }
    expect(BENCHMARK_USAGE.startsWith('Usage: redis-benchmark [OPTIONS] [COMMAND ARGS...]\n\nOptions:\n -h <hostname>')).toBe(true);
  });

  it('--help and --version exit 0', () => {
    expect(parseBenchmarkArgs(['--help'])).toEqual({ error: BENCHMARK_USAGE, exitCode: 0, stream: 'stdout' });
    expect(parseBenchmarkArgs(['-v'])).toEqual({ error: 'redis-benchmark 7.0.15\n', exitCode: 0, stream: 'stdout' });
  });

  it('-e and too many threads only warn', () => {
    expect(parsed(['-e', '--threads', '600']).warnings).toEqual([
      'WARNING: -e option has no effect. We now immediately exit on error to avoid false results.\n',
      'WARNING: Too many threads, limiting threads to 500.\n',
    ]);
  });

  it('TLS cannot be simulated', () => {
    const r = parseBenchmarkArgs(['--tls']);
    expect('error' in r && r.exitCode).toBe(1);
  });
});

describe('redis-benchmark output', () => {
  // Real 7.0.15, `redis-benchmark -c 1 -n 2000 -q` through a pipe (\r shown as such):
  //   " \rPING_INLINE: rps=0.0 (overall: inf) avg_msec=0.161 (overall: 0.161)\r<68 spaces>\rPING_INLINE: 8510.64 requests per second, p50=0.119 msec\n"
  //   " \rSPOP: 15748.03 requests per second, p50=0.039 msec\n"
  //   ... one line per test, then an empty line.
  it('-q prints one line per test in the real order, after the progress lines it clears', () => {
    const { w } = world();
    const { out, p } = bench(w, ['-c', '1', '-n', '2000', '-q']);
    expect(p.exitCode).toBe(0);
    const lines = out.split('\n');
    expect(lines.slice(-2)).toEqual(['', '']);
    const re = new RegExp(String.raw`^ \r(?:((?:[^\r]+): rps=\d+\.\d \(overall: (?:\d+\.\d|inf|-nan)\) avg_msec=(?:${NUM3}|-nan) \(overall: (?:${NUM3}|-nan)\)\r)( +)\r)*([^\r]+): ${NUM2} requests per second, p50=${NUM3} msec$`);
    const titles: string[] = [];
    for (const line of lines.slice(0, -2)) {
      const m = re.exec(line);
      expect(m, JSON.stringify(line)).not.toBeNull();
      titles.push(m![3]!);
      // The padding that clears a progress line is as long as that line.
      if (m![1] !== undefined) expect(m![2]!.length).toBe(m![1].length);
    }
    expect(titles).toEqual(ALL_TITLES);
    expect(p.results.map((r) => r.name)).toEqual(ALL_TITLES);
  });

  // Real 7.0.15, `redis-benchmark -c 5 -n 3000 -t ping,lrange_100,mset --csv`:
  //   "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
  //   "PING_INLINE","34090.91","0.098","0.024","0.087","0.159","0.263","3.159"
  //   "PING_MBULK","42253.52","0.078","0.032","0.079","0.119","0.183","0.799"
  //   "LPUSH (needed to benchmark LRANGE)","33333.33","0.100","0.032","0.095","0.175","0.231","0.879"
  //   "LRANGE_100 (first 100 elements)","19607.84","0.178","0.048","0.151","0.335","0.407","1.743"
  //   "MSET (10 keys)","37974.68","0.087","0.032","0.079","0.143","0.191","2.639"
  // and nothing else: no progress lines, no final empty line.
  it('--csv prints the header and one quoted row per test', () => {
    const { w } = world();
    const { out } = bench(w, ['-c', '5', '-n', '3000', '-t', 'ping,lrange_100,mset', '--csv']);
    const lines = out.split('\n');
    expect(lines[0]).toBe('"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"');
    expect(lines[lines.length - 1]).toBe('');
    const rows = lines.slice(1, -1);
    expect(rows.map((r) => r.split('","')[0]!.slice(1))).toEqual(['PING_INLINE', 'PING_MBULK', 'LPUSH (needed to benchmark LRANGE)', 'LRANGE_100 (first 100 elements)', 'MSET (10 keys)']);
    for (const row of rows) expect(row).toMatch(new RegExp(String.raw`^"[^"]+","${NUM2}"(?:,"${NUM3}"){6}$`));
  });

  // Real 7.0.15, `redis-benchmark -c 5 -n 3000 -t set,get` (server started with --save ''):
  //    \r====== SET ======
  //     3000 requests completed in 0.05 seconds
  //     5 parallel clients
  //     3 bytes payload
  //     keep alive: 1
  //     host configuration "save":
  //     host configuration "appendonly": no
  //     multi-thread: no
  //
  //   Latency by percentile distribution:
  //   0.000% <= 0.023 milliseconds (cumulative count 14)
  //   50.000% <= 0.047 milliseconds (cumulative count 1737)
  //   75.000% <= 0.063 milliseconds (cumulative count 2547)
  //   ...
  //   100.000% <= 0.471 milliseconds (cumulative count 3000)
  //
  //   Cumulative distribution of latencies:
  //   97.667% <= 0.103 milliseconds (cumulative count 2930)
  //   ...
  //   100.000% <= 0.503 milliseconds (cumulative count 3000)
  //
  //   Summary:
  //     throughput summary: 63829.79 requests per second
  //     latency summary (msec):
  //             avg       min       p50       p95       p99       max
  //           0.051     0.016     0.047     0.087     0.135     0.471
  it('the full report has the real sections in the real order', () => {
    const { w } = world();
    const { out } = bench(w, ['-c', '5', '-n', '3000', '-t', 'set,get']);
    const lines = screen(out);
    const reports: string[][] = [];
    for (const line of lines) {
      if (line.startsWith('====== ')) reports.push([]);
      reports[reports.length - 1]?.push(line);
    }
    expect(reports.map((r) => r[0])).toEqual(['====== SET ======', '====== GET ======']);
    for (const r of reports) {
      expect(r.slice(1, 9)).toEqual([
        expect.stringMatching(/^ {2}3000 requests completed in \d+\.\d{2} seconds$/),
        '  5 parallel clients',
        '  3 bytes payload',
        '  keep alive: 1',
        '  host configuration "save": 3600 1 300 100 60 10000',
        '  host configuration "appendonly": no',
        '  multi-thread: no',
        '',
      ]);
      expect(r[9]).toBe('Latency by percentile distribution:');
      const row = new RegExp(String.raw`^\d+\.\d{3}% <= ${NUM3} milliseconds \(cumulative count \d+\)$`);
      let i = 10;
      expect(r[i]).toMatch(/^0\.000% <= /);
      while (r[i] !== '') expect(r[i++]).toMatch(row);
      expect(r[i - 1]).toMatch(/^100\.000% <= .* \(cumulative count 3000\)$/);
      expect(r[++i]).toBe('Cumulative distribution of latencies:');
      i++;
      while (r[i] !== '') expect(r[i++]).toMatch(row);
      expect(r[i - 1]).toMatch(/^100\.000% <= .* \(cumulative count 3000\)$/);
      expect(r.slice(i + 1, i + 4)).toEqual([
        'Summary:',
        expect.stringMatching(new RegExp(String.raw`^ {2}throughput summary: ${NUM2} requests per second$`)),
        '  latency summary (msec):',
      ]);
      expect(r[i + 4]).toBe('          avg       min       p50       p95       p99       max');
      expect(r[i + 5]).toMatch(new RegExp(String.raw`^ {4}(?: {0,4}${NUM3} ?){6}$`));
    }
    expect(lines.slice(-2)).toEqual(['', '']);
  });

  it('printed figures agree with the results and with each other', () => {
    const { w } = world();
    const { out, p } = bench(w, ['-c', '1', '-n', '3000', '-t', 'set', '-q']);
    const r = p.results[0]!;
    expect(screen(out)[0]).toBe(`SET: ${r.rps.toFixed(2)} requests per second, p50=${r.p50Ms.toFixed(3)} msec`);
    expect(r.requests).toBe(3000);
    // Throughput is counted over whole milliseconds of the run, as the tool does.
    expect(Math.abs(r.rps - 3000 / r.seconds) / r.rps).toBeLessThan(1e-6);
    expect(Math.abs(r.elapsedUs / 1e6 - r.seconds)).toBeLessThan(0.002);
    // Latencies are bucket bounds: 8 us steps ending in 7 below 16 ms.
    expect((Math.round(r.p50Ms * 1000) + 1) % 8).toBe(0);
    expect(r.minMs).toBeLessThanOrEqual(r.p50Ms);
    expect(r.p50Ms).toBeLessThanOrEqual(r.p95Ms);
    expect(r.p99Ms).toBeLessThanOrEqual(r.maxMs);
  });

  it('latency includes the network: over the LAN a request waits at least a round trip', () => {
    const { w } = world();
    const { p } = bench(w, ['-h', 'A', '-c', '1', '-n', '500', '-t', 'get', '-q'], 'app');
    const r = p.results[0]!;
    expect(r.minMs).toBeGreaterThanOrEqual(0.264);
    expect(r.rps).toBeLessThan(1e3 / 0.271);
    expect(r.rps).toBeGreaterThan(1e3 / 0.4);
  });

  it('the same seed gives the same output, byte for byte', () => {
    const run = () => {
      const { w } = world(7);
      return bench(w, ['-c', '20', '-n', '2000', '-r', '100', '-t', 'set,get,lrange_100,mset']).out;
    };
    expect(run()).toBe(run());
  });
});

describe('redis-benchmark requests', () => {
  it('-t selects tests by the real names, case-insensitively, in the real order', () => {
    const { w } = world();
    const titles = (t: string) => bench(w, ['-n', '100', '-c', '2', '-q', '-t', t]).p.results.map((r) => r.name);
    expect(titles('get,SET,lrange_300')).toEqual(['SET', 'GET', 'LPUSH (needed to benchmark LRANGE)', 'LRANGE_300 (first 300 elements)']);
    expect(titles('ping')).toEqual(['PING_INLINE', 'PING_MBULK']);
    expect(titles('LRANGE')).toEqual(ALL_TITLES.slice(14, 19));
    // A space is part of the name, as in the real tool: ' set' selects nothing.
    expect(titles('get, set')).toEqual(['GET']);
  });

  it('SET stores the real tool payload under one key without -r', () => {
    const { w, server } = world();
    bench(w, ['-n', '100', '-c', '2', '-q', '-t', 'set,lpush']);
    const db = server.server.dbs[0]!;
    expect([...db.dict.keys()].sort()).toEqual(['key:__rand_int__', 'mylist']);
    // Real 7.0.15 stores "VXK" (and "VXKeHogKgJ=[5V9_X^b?" with -d 20).
    expect(db.dict.get('key:__rand_int__')).toBe('VXK');
    const { w: w2, server: s2 } = world();
    bench(w2, ['-n', '10', '-d', '20', '-q', '-t', 'set']);
    expect(s2.server.dbs[0]!.dict.get('key:__rand_int__')).toBe('VXKeHogKgJ=[5V9_X^b?');
  });

  it('-r spreads keys over the keyspace with 12-digit numbers', () => {
    const { w, server } = world();
    bench(w, ['-n', '2000', '-c', '10', '-r', '100000', '-q', '-t', 'set']);
    const keys = [...server.server.dbs[0]!.dict.keys()];
    expect(keys.length).toBeGreaterThan(1950);
    expect(keys.length).toBeLessThanOrEqual(2000);
    for (const k of keys) expect(k).toMatch(/^key:\d{12}$/);
    expect(Math.max(...keys.map((k) => Number(k.slice(4))))).toBeLessThan(100000);
  });

  it('-r gives each key of an MSET its own number, and ZADD a random score', async () => {
    const { w, server } = world();
    bench(w, ['-n', '1', '-c', '1', '-r', '1000000', '-q', '-t', 'mset,zadd']);
    expect([...server.server.dbs[0]!.dict.keys()].filter((k) => k.startsWith('key:')).length).toBe(10);
    const r = w.connect({ from: 'A', to: 'A:6379' });
    const zset = (await w.settle(r.call('ZRANGE', 'myzset', '0', '-1', 'WITHSCORES'))) as string[];
    expect(zset.length).toBe(2);
    expect(zset[0]).toMatch(/^element:\d{12}$/);
    expect(Number(zset[1])).toBeGreaterThan(0);
  });

  it('-P sends that many requests per flight', () => {
    const { w } = world();
    const plain = bench(w, ['-n', '1000', '-c', '5', '-q', '-t', 'set']).p.results[0]!;
    const piped = bench(w, ['-n', '1000', '-c', '5', '-P', '10', '-q', '-t', 'set']).p.results[0]!;
    expect(plain.flights).toBe(1000);
    expect(piped.flights).toBe(100);
    expect(piped.rps).toBeGreaterThan(plain.rps);
  });

  it('-P can overshoot -n by a flight, and counts what it received', () => {
    // Real: `-c 1 -n 10 -P 3 -t set` reports "12 requests completed" and a
    // histogram holding 10 values.
    const { w } = world();
    const { out, p } = bench(w, ['-n', '10', '-c', '1', '-P', '3', '-t', 'set']);
    expect(p.results[0]!.requests).toBe(12);
    expect(screen(out)).toContain('  12 requests completed in 0.00 seconds');
    expect(screen(out).filter((l) => l.startsWith('100.000% <='))[0]).toMatch(/\(cumulative count 10\)$/);
  });

  it('a command line is benchmarked instead of the suite, __rand_int__ and all', async () => {
    const { w } = world();
    const { out, p } = bench(w, ['-n', '500', '-c', '4', '-r', '50', '-q', 'sadd', 'myset', 'member:__rand_int__']);
    // Real: the line is titled by the command, and no empty line follows.
    expect(screen(out)).toEqual([expect.stringMatching(/^sadd myset member:__rand_int__: .* requests per second, p50=/), '']);
    expect(p.results.map((r) => r.name)).toEqual(['sadd myset member:__rand_int__']);
    const r = w.connect({ from: 'A', to: 'A:6379' });
    const n = (await w.settle(r.call('SCARD', 'myset'))) as number;
    expect(n).toBeGreaterThan(40);
    expect(n).toBeLessThanOrEqual(50);
  });

  it('--dbnum selects the database first on each connection', () => {
    const { w, server } = world();
    bench(w, ['-n', '20', '-c', '2', '--dbnum', '3', '-q', '-t', 'set']);
    expect(server.server.dbs[0]!.size).toBe(0);
    expect(server.server.dbs[3]!.size).toBe(1);
  });

  it('-k 0 opens a new connection for every request', () => {
    const { w } = world();
    const connects = () => w.trace.find('connect').length;
    const before = connects();
    const { err, p } = bench(w, ['-n', '200', '-c', '5', '-k', '0', '-q', '-t', 'ping_mbulk']);
    expect(err).toContain("WARNING: Keepalive disabled. You probably need 'echo 1 > /proc/sys/net/ipv4/tcp_tw_reuse'");
    expect(p.results[0]!.requests).toBe(200);
    // One for CONFIG GET, five to start, one more after each reply but the last.
    expect(connects() - before).toBeGreaterThanOrEqual(200);
  });

  it('--threads runs one loop per thread and says so', () => {
    const { w } = world();
    const { out } = bench(w, ['-n', '400', '-c', '4', '--threads', '2', '-t', 'get']);
    expect(screen(out)).toContain('  multi-thread: yes');
    expect(screen(out)).toContain('  threads: 2');
  });

  it('-I opens idle connections and reports them until stopped', () => {
    const { w, server } = world();
    let out = '';
    const p = startBenchmark(w, 'A', ['-I', '-c', '3'], (t) => (out += t));
    w.advance(600);
    expect(out).toBe('Creating 3 idle connections and waiting forever (Ctrl+C when done)\nclients: 3\rclients: 3\rclients: 3\r');
    expect(server.clientCount).toBe(3);
    p.signal('INT');
    expect(p.exitCode).toBe(130);
  });
});

describe('redis-benchmark errors', () => {
  // Real 7.0.15 with no server on the port prints these two lines on stderr
  // and then spins in its write loop forever (the connection error reaches
  // its write handler as EAGAIN), until interrupted.
  it('connection refused prints the real messages and hangs until interrupted', () => {
    const { w } = world();
    const { p, out, err } = bench(w, ['-p', '6380', '-q'], 'A', 5_000);
    expect(err).toBe('Could not connect to Redis at 127.0.0.1:6380: Connection refused\nWARNING: Could not fetch server CONFIG\n');
    expect(out).toBe('');
    expect(p.stuck).toBe(true);
    expect(p.alive).toBe(true);
    p.signal('INT');
    expect(p.alive).toBe(false);
    expect(p.exitCode).toBe(130);
  });

  it('a missing Unix socket or an unknown host fails at once with exit 1', () => {
    const { w } = world();
    const sock = bench(w, ['-s', '/tmp/nope.sock', '-q']);
    expect(sock.err).toBe(
      'Could not connect to Redis at /tmp/nope.sock: No such file or directory\nWARNING: Could not fetch server CONFIG\nCould not connect to Redis at /tmp/nope.sock: No such file or directory\n',
    );
    expect(sock.p.exitCode).toBe(1);
    const host = bench(w, ['-h', 'nosuchhost', '-q']);
    expect(host.err).toBe(
      'Could not connect to Redis at nosuchhost:6379: Name or service not known\nWARNING: Could not fetch server CONFIG\nCould not connect to Redis at nosuchhost:6379: Name or service not known\n',
    );
    expect(host.p.exitCode).toBe(1);
  });

  it('a Unix socket that exists is used', () => {
    const { w } = world();
    const { p } = bench(w, ['-s', '/tmp/redis.sock', '-n', '100', '-q', '-t', 'ping']);
    expect(p.exitCode).toBe(0);
    expect(p.results.length).toBe(2);
  });

  it('an error reply during a test stops the tool', () => {
    const { w } = world();
    const { p, err } = bench(w, ['--dbnum', '99', '-n', '10', '-q', '-t', 'set']);
    expect(err).toBe('Error from server: ERR DB index is out of range\n');
    expect(p.exitCode).toBe(1);
  });

  it('a server asking for a password stops it before the tests', () => {
    const { w } = world(1, { requirepass: 'secret' });
    const none = bench(w, ['-q', '-t', 'set']);
    expect(none.err).toBe('Node 127.0.0.1:6379 replied with error:\nNOAUTH Authentication required.\n');
    expect(none.p.exitCode).toBe(1);
    const good = bench(w, ['-a', 'secret', '-n', '10', '-q', '-t', 'set']);
    expect(good.p.exitCode).toBe(0);
  });

  it('a server that goes away mid-test ends the tool', () => {
    const { w, server } = world();
    let err = '';
    const p = startBenchmark(w, 'A', ['-q', '-t', 'set'], () => {}, { err: (t) => (err += t) });
    w.advance(5);
    server.signal('KILL');
    w.runUntil(() => !p.alive, { maxMs: 1000 });
    expect(err).toBe('Error: Server closed the connection\n');
    expect(p.exitCode).toBe(1);
  });

  it('a full memory refuses the writes, and the tool stops at the first refusal', () => {
    // Real 7.0.15 against a server with maxmemory 1mb prints exactly this line.
    const { w } = world(1, { maxmemory: '1mb' });
    const { p, err } = bench(w, ['-q', '-t', 'set', '-d', '1000', '-r', '100000000']);
    expect(err).toBe("Error from server: OOM command not allowed when used memory > 'maxmemory'.\n");
    expect(p.exitCode).toBe(1);
  });

  // Real 7.0.15 against a server started with --rename-command CONFIG "":
  // "WARNING: Could not fetch server CONFIG" on stderr, and the report leaves
  // out its two host configuration lines.
  it('a server that refuses CONFIG gets a report without its configuration', () => {
    const { w } = world();
    w.host('A').listen(7000, (socket) => {
      const parser = new RequestParser();
      socket.onData = (data) => {
        parser.feed(data);
        let out = '';
        for (let argv = parser.next(); Array.isArray(argv); argv = parser.next()) {
          out += argv[0] === 'CONFIG' ? "-ERR unknown command 'CONFIG', with args beginning with: 'GET' 'save' \r\n" : '+OK\r\n';
        }
        socket.write(out);
      };
    });
    const { p, out, err } = bench(w, ['-p', '7000', '-c', '1', '-n', '100', '-t', 'set']);
    expect(err).toBe('WARNING: Could not fetch server CONFIG\n');
    expect(screen(out).slice(0, 7)).toEqual([
      '====== SET ======',
      expect.stringMatching(/^ {2}100 requests completed in/),
      '  1 parallel clients',
      '  3 bytes payload',
      '  keep alive: 1',
      '  multi-thread: no',
      '',
    ]);
    expect(p.hostConfig).toBeNull();
  });

  it('--precision 0 crashes like the real tool', () => {
    const { w } = world();
    const { p } = bench(w, ['--precision', '0', '-n', '10', '-q', '-t', 'set']);
    expect(p.exitCode).toBe(139);
  });
});
