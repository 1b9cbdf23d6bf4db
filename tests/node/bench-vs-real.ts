/**
 * Throughput of `npm run server` next to the real redis-server, measured
 * with redis-benchmark: `npx tsx tests/node/bench-vs-real.ts [rounds]`.
 *
 * Both servers run at the same time and are measured in alternation, so a
 * busy machine slows both alike; each figure is the median over the rounds.
 * Besides requests per second it reports the server's own CPU time per
 * request (from /proc), which depends much less on what else the machine
 * is doing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, RawConnection, startRealRedis } from '../support/real-redis.js';

const rounds = Number(process.argv[2] ?? 5);
const TICKS_PER_SECOND = 100;

const SCENARIOS: Array<{ name: string; args: string[]; requests: number }> = [
  { name: 'SET -c 50 -P 16', args: ['-c', '50', '-P', '16', '-t', 'set'], requests: 1_000_000 },
  { name: 'GET -c 50 -P 16', args: ['-c', '50', '-P', '16', '-t', 'get'], requests: 1_000_000 },
  { name: 'SET -c 1', args: ['-c', '1', '-t', 'set'], requests: 50_000 },
  { name: 'GET -c 1', args: ['-c', '1', '-t', 'get'], requests: 50_000 },
];

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

function bench(port: number, args: string[], requests: number): number {
  const r = spawnSync('redis-benchmark', ['-p', String(port), '-q', '-n', String(requests), ...args], { encoding: 'utf8' });
  const m = /([\d.]+) requests per second/.exec(r.stdout.split('\r').pop() ?? '');
  if (!m) throw new Error(`redis-benchmark failed: ${r.stdout} ${r.stderr}`);
  return Number(m[1]);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      const c = await RawConnection.open(port);
      c.close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error('the emulator did not start');
}

const real = await startRealRedis();
const emuPort = await freePort();
const root = join(import.meta.dirname, '..', '..');
const emu = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/node/server.ts'), '--port', String(emuPort), '--save', ''], {
  cwd: root,
  stdio: 'ignore',
});
try {
  await waitForPort(emuPort);
  const targets = [
    { name: 'real', port: real.port, pid: real.process.pid! },
    { name: 'emulator', port: emuPort, pid: emu.pid! },
  ];
  const rps = new Map<string, number[]>();
  const cpu = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    for (const s of SCENARIOS) {
      for (const t of targets) {
        const before = cpuSeconds(t.pid);
        const r = bench(t.port, s.args, s.requests);
        const usPerRequest = ((cpuSeconds(t.pid) - before) * 1e6) / s.requests;
        const key = `${s.name}|${t.name}`;
        rps.set(key, [...(rps.get(key) ?? []), r]);
        cpu.set(key, [...(cpu.get(key) ?? []), usPerRequest]);
      }
    }
  }
  console.log(`median of ${rounds} rounds (load average now: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`);
  console.log('scenario           real rps   emulator rps  ratio   real us/req  emulator us/req');
  for (const s of SCENARIOS) {
    const r = median(rps.get(`${s.name}|real`)!);
    const e = median(rps.get(`${s.name}|emulator`)!);
    const rc = median(cpu.get(`${s.name}|real`)!);
    const ec = median(cpu.get(`${s.name}|emulator`)!);
    console.log(
      `${s.name.padEnd(17)} ${r.toFixed(0).padStart(9)} ${e.toFixed(0).padStart(13)}  ${(e / r).toFixed(2).padStart(5)}  ` +
        `${rc.toFixed(2).padStart(11)}  ${ec.toFixed(2).padStart(15)}`,
    );
  }
} finally {
  emu.kill('SIGTERM');
  await real.stop();
}
