/**
 * SENTINEL's replies, byte for byte: a real redis-sentinel 7.0.15 and the
 * emulator's (`npm run server -- sentinel.conf --sentinel`), each watching
 * its own real redis-server with no replicas, get the same commands over
 * TCP. What must differ is normalized: the servers' and sentinels' ports
 * (5 digits each, so RESP lengths stay right) and run ids. Only replies
 * that do not depend on timing are compared. Skipped, with a notice,
 * without redis-server and redis-sentinel.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, RawConnection, startRealRedis, type RealRedis } from '../support/real-redis.js';
import { sentinelConnection, sentinelTestsRun, spawnSentinel } from './availability.js';
import { waitFor } from '../support/wait-for.js';

const RUN = sentinelTestsRun('sentinel replies');

interface Side {
  server: RealRedis;
  port: number;
  child: ChildProcess;
  dir: string;
  conf: string;
  conn: RawConnection;
}

const sides: Side[] = [];

/** A sentinel, real or the emulator's, watching a fresh real server as "mymaster" with quorum 2. */
async function startSide(kind: 'real' | 'emulator'): Promise<Side> {
  const server = await startRealRedis();
  const dir = mkdtempSync(join(tmpdir(), `rw-sentinel-replies-${kind}-`));
  const port = await freePort();
  const conf = join(dir, 'sentinel.conf');
  writeFileSync(
    conf,
    [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, `logfile ${join(dir, 'sentinel.log')}`, 'sentinel deny-scripts-reconfig no', `sentinel monitor mymaster 127.0.0.1 ${server.port} 2`, ''].join('\n'),
  );
  const child = spawnSentinel(kind, conf);
  const conn = await sentinelConnection(`${kind} sentinel on ${port}`, port);
  const side = { server, port, child, dir, conf, conn };
  sides.push(side);
  // The master's INFO has been read (its run id is known) before anything is compared.
  await waitFor(`${kind} sentinel read the master's INFO`, async () => {
    const m = (await conn.command(['SENTINEL', 'MASTER', 'mymaster'])) as unknown[];
    const runid = m[m.indexOf('runid') + 1];
    return typeof runid === 'string' && runid.length === 40 ? true : undefined;
  });
  return side;
}

/** The reply's bytes with this side's ports and any run id replaced by placeholders of the same width. */
function normalize(side: Side, bytes: string): string {
  return bytes
    .replaceAll(String(side.server.port), 'SPORT'.padEnd(String(side.server.port).length, '_'))
    .replaceAll(String(side.port), 'XPORT'.padEnd(String(side.port).length, '_'))
    .replace(/\b[0-9a-f]{40}\b/g, 'RUNID'.padEnd(40, '_'));
}

/** Sends the same command (with each side's own server port where `{port}` appears) to both sentinels. */
async function both(argv: string[]): Promise<[string, string]> {
  const out = await Promise.all(
    sides.map(async (s) => normalize(s, await s.conn.commandRaw(argv.map((a) => a.replace('{port}', String(s.server.port)))))),
  );
  return [out[0]!, out[1]!];
}

describe.skipIf(!RUN)('SENTINEL replies: real redis-sentinel and the emulator over TCP', () => {
  beforeAll(async () => {
    await startSide('real');
    await startSide('emulator');
  }, 60_000);

  afterAll(async () => {
    for (const s of sides) {
      s.conn.close();
      if (s.child.exitCode === null && s.child.signalCode === null) {
        const exited = new Promise((r) => s.child.once('exit', r));
        s.child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
      }
      await s.server.stop();
      rmSync(s.dir, { recursive: true, force: true });
    }
  });

  const SCRIPT: string[][] = [
    // FAILOVER: arity, unknown master, no replica to promote.
    ['SENTINEL', 'FAILOVER'],
    ['SENTINEL', 'FAILOVER', 'nosuch'],
    ['SENTINEL', 'FAILOVER', 'mymaster'],
    // CONFIG GET|SET of the global options.
    ['SENTINEL', 'CONFIG'],
    ['SENTINEL', 'CONFIG', 'FOO', 'bar'],
    ['SENTINEL', 'CONFIG', 'GET', '*'],
    ['SENTINEL', 'CONFIG', 'GET', 'ANNOUNCE-*'],
    ['SENTINEL', 'CONFIG', 'GET', 'nomatch'],
    ['SENTINEL', 'CONFIG', 'GET'],
    ['SENTINEL', 'CONFIG', 'SET', 'announce-port', '70000'],
    ['SENTINEL', 'CONFIG', 'SET', 'announce-port', '12x'],
    ['SENTINEL', 'CONFIG', 'SET', 'announce-port', '1', '2'],
    ['SENTINEL', 'CONFIG', 'SET', 'resolve-hostnames', 'maybe'],
    ['SENTINEL', 'CONFIG', 'SET', 'no-such-option', 'x'],
    ['SENTINEL', 'CONFIG', 'SET', 'announce-hostnames', 'YES'],
    ['SENTINEL', 'CONFIG', 'SET', 'announce-ip', '10.1.2.3'],
    ['SENTINEL', 'CONFIG', 'GET', 'announce-*'],
    ['SENTINEL', 'CONFIG', 'SET', 'announce-ip', ''],
    ['SENTINEL', 'CONFIG', 'SET', 'announce-hostnames', 'no'],
    ['SENTINEL', 'CONFIG', 'GET', '*hostnames'],
    // Scripts never run: the queue is empty.
    ['SENTINEL', 'PENDING-SCRIPTS'],
    ['SENTINEL', 'PENDING-SCRIPTS', 'x'],
    // SIMULATE-FAILURE: help, a bad name after a good one (the good one stays set), the flags INFO shows, clearing.
    ['SENTINEL', 'SIMULATE-FAILURE', 'HELP'],
    ['SENTINEL', 'SIMULATE-FAILURE', 'crash-after-election', 'bogus'],
    ['INFO', 'sentinel'],
    ['SENTINEL', 'SIMULATE-FAILURE', 'crash-after-promotion'],
    ['INFO', 'sentinel'],
    ['SENTINEL', 'SIMULATE-FAILURE'],
    ['INFO', 'sentinel'],
    ['SENTINEL', 'SIMULATE-FAILURE', 'CRASH-AFTER-ELECTION', 'crash-after-promotion'],
    ['INFO', 'sentinel'],
    ['SENTINEL', 'SIMULATE-FAILURE', 'help', 'crash-after-election'],
    ['INFO', 'sentinel'],
    // INFO-CACHE of masters it does not monitor.
    ['SENTINEL', 'INFO-CACHE', 'nosuch', 'other'],
    // IS-MASTER-DOWN-BY-ADDR edge cases.
    ['SENTINEL', 'IS-MASTER-DOWN-BY-ADDR', '127.0.0.1', 'x', '0', '*'],
    ['SENTINEL', 'IS-MASTER-DOWN-BY-ADDR', '127.0.0.1', '1', 'y', '*'],
    ['SENTINEL', 'IS-MASTER-DOWN-BY-ADDR', '127.0.0.1', '1', '0', '*'],
    ['SENTINEL', 'IS-MASTER-DOWN-BY-ADDR', '127.0.0.1', '{port}', '0', '*'],
    ['SENTINEL', 'IS-MASTER-DOWN-BY-ADDR', '127.0.0.1', '{port}'],
    // The rest of the table: quorum, address, ids, monitor edge cases.
    ['SENTINEL', 'CKQUORUM', 'mymaster'],
    ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mymaster'],
    ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'nosuch'],
    ['SENTINEL', 'MYID', 'x'],
    ['SENTINEL', 'MONITOR', 'other', 'not-an-ip', '1234', '2'],
    ['SENTINEL', 'MONITOR', 'other', '127.0.0.1', '1234', '0'],
    ['SENTINEL', 'MONITOR', 'mymaster', '127.0.0.1', '1234', '2'],
    ['SENTINEL', 'SET', 'mymaster', 'quorum', '0'],
    ['SENTINEL', 'SET', 'mymaster', 'no-such-option', '1'],
    ['SENTINEL', 'FLUSHCONFIG'],
    // DEBUG's TILT options (what Redis's own Sentinel suite sets first), and its errors.
    ['SENTINEL', 'DEBUG', 'tilt-period', '5000', 'TILT-TRIGGER', '2500'],
    ['SENTINEL', 'DEBUG', 'tilt-period', '0'],
    ['SENTINEL', 'DEBUG', 'tilt-period'],
    ['SENTINEL', 'DEBUG', 'no-such-option', '1'],
    // The other periods: set as read, so the error on ask-period leaves ping-period set; then all of them listed.
    ['SENTINEL', 'DEBUG', 'ping-period', '500', 'ask-period', '0'],
    ['SENTINEL', 'DEBUG', 'info-period', '3000', 'PUBLISH-PERIOD', '1500', 'default-down-after', '2000', 'script-retry-delay', '100'],
    ['SENTINEL', 'DEBUG'],
    // SET as sentinelSetCommand reads it: options applied in turn; a script must be an executable file.
    ['SENTINEL', 'SET', 'mymaster', 'quorum'],
    ['SENTINEL', 'SET', 'mymaster', 'quorum', '3', 'parallel-syncs'],
    ['SENTINEL', 'SET', 'mymaster', 'notification-script', '/nonexistent'],
    ['SENTINEL', 'SET', 'mymaster', 'client-reconfig-script', '/etc/hostname'],
    ['SENTINEL', 'SET', 'mymaster', 'client-reconfig-script', ''],
    ['SENTINEL', 'SET', 'mymaster', 'failover-timeout', '12x'],
    ['SENTINEL', 'NO-SUCH-SUBCOMMAND'],
    ['ROLE'],
  ];

  it('answers the same bytes to SENTINEL FAILOVER, CONFIG, PENDING-SCRIPTS, SIMULATE-FAILURE, INFO-CACHE and the rest', async () => {
    const mismatches: string[] = [];
    for (const argv of SCRIPT) {
      const [real, emulated] = await both(argv);
      if (real !== emulated) mismatches.push(`${argv.join(' ')}\n  real:     ${JSON.stringify(real)}\n  emulator: ${JSON.stringify(emulated)}`);
    }
    expect(mismatches.join('\n')).toBe('');
  });

  it('runs the notification script with the same arguments', async () => {
    for (const s of sides) {
      // A script that writes its arguments, one per line, into a file of its own (scripts run side by side).
      const script = join(s.dir, 'notify.sh');
      writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$@" > ${join(s.dir, 'event')}.$$\n`, { mode: 0o755 });
      expect(await s.conn.commandRaw(['SENTINEL', 'SET', 'mymaster', 'notification-script', script])).toBe('+OK\r\n');
      // +set is a warning about the master: the script runs for it (and ran for the +set of the script itself).
      expect(await s.conn.commandRaw(['SENTINEL', 'SET', 'mymaster', 'quorum', '2'])).toBe('+OK\r\n');
    }
    const events = await Promise.all(
      sides.map((s) =>
        waitFor(`the notification script ran twice`, async () => {
          const runs = readdirSync(s.dir)
            .filter((f) => f.startsWith('event.'))
            .map((f) => normalize(s, readFileSync(join(s.dir, f), 'latin1').replaceAll(s.dir, 'DIR')))
            .sort();
          return runs.length === 2 && runs.every((r) => r.endsWith('\n')) ? runs : undefined;
        }),
      ),
    );
    expect(events[1]).toEqual(events[0]);
    expect(events[0]).toEqual(['+set\nmaster mymaster 127.0.0.1 SPORT notification-script DIR/notify.sh\n', '+set\nmaster mymaster 127.0.0.1 SPORT quorum 2\n']);
  });

  it('INFO-CACHE gives each master and replica the INFO text it last read, with its age', async () => {
    for (const s of sides) {
      const r = (await s.conn.command(['SENTINEL', 'INFO-CACHE', 'mymaster', 'nosuch', 'mymaster'])) as unknown[];
      expect(r).toHaveLength(2);
      expect(r[0]).toBe('mymaster');
      const entries = r[1] as unknown[][];
      expect(entries).toHaveLength(1);
      expect(typeof entries[0]![0]).toBe('number');
      expect(String(entries[0]![1])).toContain(`tcp_port:${s.server.port}`);
    }
  });

  it('keeps CONFIG SET options in the file it rewrites', async () => {
    for (const s of sides) {
      expect(await s.conn.commandRaw(['SENTINEL', 'CONFIG', 'SET', 'announce-port', '26999'])).toBe('+OK\r\n');
      expect(await s.conn.commandRaw(['SENTINEL', 'CONFIG', 'SET', 'resolve-hostnames', 'yes'])).toBe('+OK\r\n');
    }
    // Which lines, not where: Redis rewrites lines in place, the emulator writes its block anew.
    const files = sides.map((s) => readFileSync(s.conf, 'utf8').split('\n').filter((l) => /^sentinel (announce-port|resolve-hostnames)/.test(l)).sort());
    expect(files[0]).toEqual(['sentinel announce-port 26999', 'sentinel resolve-hostnames yes']);
    expect(files[1]).toEqual(files[0]);
    for (const s of sides) {
      await s.conn.command(['SENTINEL', 'CONFIG', 'SET', 'announce-port', '0']);
      await s.conn.command(['SENTINEL', 'CONFIG', 'SET', 'resolve-hostnames', 'no']);
    }
  });
});
