/**
 * A master's notification-script and client-reconfig-script: SENTINEL SET
 * refuses them under deny-scripts-reconfig and when the file is not
 * executable; set, they run as programs of the sentinel's host with
 * Redis's arguments (the event's type and text; the failover's master,
 * role and addresses), one that exits with 1 is retried after
 * script-retry-delay, one that runs past script-max-runtime is killed,
 * and SENTINEL PENDING-SCRIPTS and INFO show the queue.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { registerSentinel } from '../../../emulator/sentinel/daemon.js';
import { bytesFromArray, bytesToArray } from '../../../emulator/resp/bytes.js';
import type { HostPrograms } from '../../../emulator/sim/host.js';

/** A run of a script: its arguments, and when the host started it (virtual ms). */
interface Run {
  argv: readonly string[];
  startMs: number;
  end(code: number, signal?: number): void;
  killed: boolean;
}

/**
 * The sentinel host's files: the scripts under /scripts are executable.
 * A run ends when the test says (end), so each outcome is chosen.
 */
function scriptHost(world: World): { programs: HostPrograms; runs: Run[] } {
  const runs: Run[] = [];
  let pid = 5000;
  const programs: HostPrograms = {
    executable: (path, cwd) => (path.startsWith('/') ? path : `${cwd}/${path}`).startsWith('/scripts/'),
    run(_path, argv, _cwd, exited) {
      const run: Run = { argv, startMs: Math.floor(world.kernel.nowUs() / 1000), killed: false, end: (code, signal = 0) => exited(code, signal) };
      runs.push(run);
      return {
        pid: pid++,
        kill: () => {
          run.killed = true;
          exited(0, 9);
        },
      };
    },
  };
  return { programs, runs };
}

function setup(seed: number, conf: string): { world: World; runs: Run[]; log: () => string; conf: () => string } {
  const world = new World({ seed });
  registerSentinel(world);
  for (const h of ['A', 'B', 'S1']) world.addHost(h);
  world.startRedis('A', { config: { save: '' } });
  world.startRedis('B', { config: { save: '', replicaof: '10.0.0.2 6379' } });
  const s1 = world.host('S1');
  const { programs, runs } = scriptHost(world);
  s1.programs = programs;
  s1.disk.writeFile('/sentinel.conf', bytesToArray(`logfile "/sentinel.log"\n${conf}sentinel monitor mymaster 10.0.0.2 6379 1\nsentinel down-after-milliseconds mymaster 2000\nsentinel failover-timeout mymaster 20000\n`));
  world.spawn('S1', 'redis-sentinel', { config: '/sentinel.conf' });
  return {
    world,
    runs,
    log: () => bytesFromArray(s1.disk.readFile('/sentinel.log')),
    conf: () => bytesFromArray(s1.disk.readFile('/sentinel.conf')),
  };
}

function advanceUntil(world: World, done: () => boolean, limitMs: number): void {
  for (let t = 0; t < limitMs && !done(); t += 100) world.advance(100);
  expect(done()).toBe(true);
}

describe('Sentinel scripts', () => {
  it('refuses a script path under deny-scripts-reconfig (the default) and a file that is not executable', async () => {
    const denied = setup(1, '');
    const c = denied.world.connect({ from: 'S1', to: 'S1:26379' });
    const err = await denied.world.settle(c.call('SENTINEL', 'SET', 'mymaster', 'notification-script', '/scripts/n.sh')).catch((e: Error) => e.message);
    expect(err).toBe('ERR Reconfiguration of scripts path is denied for security reasons. Check the deny-scripts-reconfig configuration directive in your Sentinel configuration');

    const open = setup(2, 'sentinel deny-scripts-reconfig no\n');
    const d = open.world.connect({ from: 'S1', to: 'S1:26379' });
    const missing = await open.world.settle(d.call('SENTINEL', 'SET', 'mymaster', 'quorum', '1', 'client-reconfig-script', '/tmp/nope.sh')).catch((e: Error) => e.message);
    expect(missing).toBe('ERR Client reconfiguration script seems non existing or non executable');
    // The quorum before the bad option was still applied and announced.
    expect(open.log()).toContain('+set master mymaster 10.0.0.2 6379 quorum 1');
    expect(String(await open.world.settle(d.call('SENTINEL', 'SET', 'mymaster', 'notification-script', '/scripts/n.sh')))).toBe('OK');
    const master = (await open.world.settle(d.call('SENTINEL', 'MASTER', 'mymaster'))) as string[];
    expect(master.slice(-2)).toEqual(['notification-script', '/scripts/n.sh']);
    expect(open.conf()).toContain('sentinel deny-scripts-reconfig no\n');
    expect(open.conf()).toContain('sentinel notification-script mymaster /scripts/n.sh\n');
    // An empty path removes it.
    expect(String(await open.world.settle(d.call('SENTINEL', 'SET', 'mymaster', 'notification-script', '')))).toBe('OK');
    expect(open.conf()).not.toContain('notification-script');
  });

  it('runs the notification script for warnings and the client-reconfig script at a failover, with Redis arguments', async () => {
    const { world, runs, log } = setup(3, 'sentinel deny-scripts-reconfig no\nsentinel notification-script mymaster /scripts/n.sh\nsentinel client-reconfig-script mymaster /scripts/r.sh\n');
    advanceUntil(world, () => log().includes('+slave slave'), 20_000);
    // Each run ends well as soon as it starts.
    const ended = new Set<Run>();
    const finishAll = (): void => {
      for (const r of runs) {
        if (ended.has(r)) continue;
        ended.add(r);
        r.end(0);
      }
    };
    world.advance(3000);
    finishAll();
    // The +monitor at start is a warning about the master.
    expect(runs[0]!.argv).toEqual(['/scripts/n.sh', '+monitor', 'master mymaster 10.0.0.2 6379 quorum 1']);
    world.host('A').processes.forEach((p) => p.signal('KILL'));
    for (let t = 0; t < 60_000 && !log().includes('+switch-master'); t += 100) {
      world.advance(100);
      finishAll();
    }
    world.advance(500);
    finishAll();
    const notified = runs.filter((r) => r.argv[0] === '/scripts/n.sh').map((r) => r.argv[1]);
    expect(notified).toEqual(expect.arrayContaining(['+sdown', '+odown', '+try-failover', '+new-epoch', '+vote-for-leader', '+elected-leader', '+promoted-slave', '+switch-master']));
    // Notices (+slave) are not told to the script.
    expect(notified).not.toContain('+slave');
    const switched = runs.find((r) => r.argv[1] === '+switch-master')!;
    expect(switched.argv[2]).toBe('mymaster 10.0.0.2 6379 10.0.0.3 6379');
    const reconf = runs.filter((r) => r.argv[0] === '/scripts/r.sh');
    expect(reconf.map((r) => r.argv)).toEqual([['/scripts/r.sh', 'mymaster', 'leader', 'start', '10.0.0.2', '6379', '10.0.0.3', '6379']]);
    const c = world.connect({ from: 'S1', to: 'S1:26379' });
    expect(await world.settle(c.call('SENTINEL', 'PENDING-SCRIPTS'))).toEqual([]);
  });

  it('retries a script that exits with 1, drops one that fails otherwise, and kills one that runs too long', async () => {
    const { world, runs, log } = setup(4, 'sentinel deny-scripts-reconfig no\nsentinel notification-script mymaster /scripts/n.sh\n');
    const c = world.connect({ from: 'S1', to: 'S1:26379' });
    expect(String(await world.settle(c.call('SENTINEL', 'DEBUG', 'script-retry-delay', '3000', 'script-max-runtime', '5000')))).toBe('OK');
    advanceUntil(world, () => runs.length === 1, 2000);
    const first = runs[0]!;
    first.end(1);
    world.advance(500);
    const pending = (await world.settle(c.call('SENTINEL', 'PENDING-SCRIPTS'))) as unknown[][];
    expect(pending).toHaveLength(1);
    const job = pending[0]!;
    expect(job.slice(0, 6)).toEqual(['argv', ['/scripts/n.sh', '+monitor', 'master mymaster 10.0.0.2 6379 quorum 1'], 'flags', 'scheduled', 'pid', '0']);
    expect(job[6]).toBe('run-delay');
    expect(Number(job[7])).toBeGreaterThan(0);
    expect(job.slice(8)).toEqual(['retry-num', '1']);
    // It runs again once the retry delay is over.
    advanceUntil(world, () => runs.length === 2, 4000);
    expect(runs[1]!.startMs - first.startMs).toBeGreaterThanOrEqual(3000);
    // Exit code 3 is not a "retry me": the job is dropped and the failure reported.
    runs[1]!.end(3);
    world.advance(300);
    expect(log()).toContain('-script-error /scripts/n.sh 0 3');
    expect(await world.settle(c.call('SENTINEL', 'PENDING-SCRIPTS'))).toEqual([]);

    // A script that does not end: after script-max-runtime it is killed, then retried.
    expect(String(await world.settle(c.call('SENTINEL', 'SET', 'mymaster', 'quorum', '1')))).toBe('OK');
    advanceUntil(world, () => runs.length === 3, 2000);
    const info = String(await world.settle(c.call('INFO', 'sentinel')));
    expect(info).toContain('sentinel_running_scripts:1\r\nsentinel_scripts_queue_length:1\r\n');
    advanceUntil(world, () => runs[2]!.killed, 7000);
    expect(log()).toMatch(/-script-timeout \/scripts\/n\.sh 500\d/);
    world.advance(300);
    const retried = (await world.settle(c.call('SENTINEL', 'PENDING-SCRIPTS'))) as unknown[][];
    expect(retried[0]!.slice(2, 4)).toEqual(['flags', 'scheduled']);
  });

  it('shows and sets the periods of SENTINEL DEBUG', async () => {
    const { world } = setup(5, '');
    const c = world.connect({ from: 'S1', to: 'S1:26379' });
    const before = (await world.settle(c.call('SENTINEL', 'DEBUG'))) as string[];
    expect(before).toEqual([
      'INFO-PERIOD', '10000', 'PING-PERIOD', '1000', 'ASK-PERIOD', '1000', 'PUBLISH-PERIOD', '2000', 'DEFAULT-DOWN-AFTER', '30000',
      'DEFAULT-FAILOVER-TIMEOUT', '180000', 'TILT-TRIGGER', '2000', 'TILT-PERIOD', '30000', 'SLAVE-RECONF-TIMEOUT', '10000',
      'MIN-LINK-RECONNECT-PERIOD', '15000', 'ELECTION-TIMEOUT', '10000', 'SCRIPT-MAX-RUNTIME', '60000', 'SCRIPT-RETRY-DELAY', '30000',
    ]);
    // Applied as read: ping-period is set before the bad value stops the command.
    const bad = await world.settle(c.call('SENTINEL', 'DEBUG', 'ping-period', '500', 'ask-period', '0')).catch((e: Error) => e.message);
    expect(bad).toBe("ERR Invalid argument '0' for SENTINEL DEBUG 'ask-period'");
    const unknown = await world.settle(c.call('SENTINEL', 'DEBUG', 'info-period')).catch((e: Error) => e.message);
    expect(unknown).toBe("ERR Unknown option or number of arguments for SENTINEL DEBUG 'info-period'");
    expect(String(await world.settle(c.call('SENTINEL', 'DEBUG', 'default-down-after', '1000')))).toBe('OK');
    const after = (await world.settle(c.call('SENTINEL', 'DEBUG'))) as string[];
    expect(after.slice(2, 4)).toEqual(['PING-PERIOD', '500']);
    // A master monitored from now on takes the new default.
    expect(String(await world.settle(c.call('SENTINEL', 'MONITOR', 'other', '10.0.0.3', '6379', '1')))).toBe('OK');
    const other = (await world.settle(c.call('SENTINEL', 'MASTER', 'other'))) as string[];
    expect(other[other.indexOf('down-after-milliseconds') + 1]).toBe('1000');
  });
});
