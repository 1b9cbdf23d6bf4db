/**
 * The primary's side of replication through `npm run server` and
 * redis-server 7.0.15 side by side: what a raw client that sends SYNC or
 * PSYNC receives (the +FULLRESYNC line, "$<len>\r\n" and the RDB with no
 * CRLF after it, then the command stream byte for byte), the partial
 * resync from the backlog, INFO replication and the sync counters, the log
 * lines of a full sync, a replica dropped for a command that replies, and
 * the real redis-cli --rdb against both. Skipped, with a notice, when no
 * real server is installed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServer, type RunningServer } from '../../src/node/server-main.js';
import { readRdb } from '../../emulator/persistence/rdb/file-reader.js';
import { RdbError } from '../../emulator/persistence/rdb/errors.js';
import { CHECK_RDB_BIN } from '../support/real-check-tools.js';
import { freePort, RawConnection, startRealRedis, type RealRedis } from '../support/real-redis.js';
import { Peer } from '../support/peer.js';
import { HAVE_REAL_REDIS, skipNotice } from './availability.js';
import { REDIS_CLI_BIN } from '../node/real-cli.js';

const HAVE_TOOLS =
  HAVE_REAL_REDIS && spawnSync(CHECK_RDB_BIN, ['-v']).error === undefined && spawnSync(REDIS_CLI_BIN, ['--version']).error === undefined;
const NOTICE = HAVE_REAL_REDIS ? 'SKIPPED: redis-check-rdb or redis-cli not found' : skipNotice();
if (!HAVE_TOOLS) console.warn(`\n!!! replication: ${NOTICE}\n`);

/**
 * Both servers run with these: no PING in the stream while a test runs
 * (serverCron's first one, at start, finds no replica), and a diskless
 * sync that starts at once rather than after five seconds.
 */
const COMMON = ['--save', '', '--repl-ping-replica-period', '3600', '--repl-diskless-sync-delay', '0'];

interface Side {
  name: 'real' | 'emulator';
  port: number;
  /** The server's log so far. */
  log(): string;
  stop(): Promise<void>;
}

async function startReal(extra: string[] = []): Promise<Side> {
  const r: RealRedis = await startRealRedis([...COMMON, ...extra]);
  return { name: 'real', port: r.port, log: () => readFileSync(join(r.dir, 'redis.log'), 'latin1'), stop: () => r.stop() };
}

async function startEmulator(extra: string[] = [], keepDir?: string): Promise<Side> {
  const dir = keepDir ?? mkdtempSync(join(tmpdir(), 'rw-repl-emu-'));
  const port = await freePort();
  let log = '';
  const cwd = process.cwd();
  const r = await runServer(['--port', String(port), '--dir', dir, ...COMMON, ...extra], { stdout: (t) => (log += t) }).finally(() =>
    process.chdir(cwd),
  );
  if (typeof r === 'number') throw new Error(`npm run server did not start:\n${log}`);
  const running: RunningServer = r;
  return {
    name: 'emulator',
    port,
    log: () => log,
    stop: async () => {
      await running.shutdown();
      if (keepDir === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function command(port: number, argv: string[]): Promise<unknown> {
  const c = await RawConnection.open(port);
  try {
    return await c.command(argv);
  } finally {
    c.close();
  }
}

async function run(port: number, commands: string[][]): Promise<void> {
  const c = await RawConnection.open(port);
  try {
    for (const argv of commands) await c.command(argv);
  } finally {
    c.close();
  }
}

/** The fields of an INFO section, by name. */
async function info(port: number, section: string): Promise<Map<string, string>> {
  const text = String(await command(port, ['INFO', section]));
  const out = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) out.set(line.slice(0, i), line.slice(i + 1));
  }
  return out;
}

/**
 * "$<len>\r\n<rdb>" at the start of `bytes`, after the newlines a primary
 * sends a replica while it waits for its BGSAVE: the RDB and what follows
 * it, or null while incomplete.
 */
function splitBulk(bytes: string): { rdb: string; rest: string } | null {
  const m = /^\n*\$(\d+)\r\n/.exec(bytes);
  if (m === null) return null;
  const start = m[0].length;
  const len = Number(m[1]);
  if (bytes.length < start + len) return null;
  return { rdb: bytes.slice(start, start + len), rest: bytes.slice(start + len) };
}

/** The keys and aux fields of an RDB. */
function rdbContents(rdb: string): { aux: Map<string, string>; keys: string[] } {
  const bytes = Uint8Array.from(rdb, (ch) => ch.charCodeAt(0));
  const c = readRdb(bytes, {
    hashMaxListpackEntries: 512, hashMaxListpackValue: 64, setMaxIntsetEntries: 512,
    zsetMaxListpackEntries: 128, zsetMaxListpackValue: 64, deepSanitize: false,
    databases: 16, verifyChecksum: true, nowMs: Date.now(), dropExpired: false, allowDuplicates: false,
  });
  if (c instanceof RdbError) throw new Error(`not an RDB: ${c.message}`);
  const keys: string[] = [];
  for (const [db, m] of c.databases) for (const k of m.keys()) keys.push(`${db}:${k}`);
  return { aux: new Map(c.aux), keys: keys.sort() };
}

/** The log's lines without pid, role and time: "* text". */
function logLines(log: string): string[] {
  return log
    .split('\n')
    .map((l) => l.replace(/^\d+:[CMSX] \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d\.\d{3} /, ''))
    .filter((l) => l !== '');
}

/**
 * The lines from the first one matching `from`, with what differs from run
 * to run masked: IDs, pids, addresses, and the client's age and reply
 * buffer in CLIENT LIST's form (the real one shrinks an idle client's
 * buffer in clientsCron, which the emulator does not model).
 */
function logFrom(log: string, from: RegExp): string[] {
  const lines = logLines(log);
  const i = lines.findIndex((l) => from.test(l));
  return (i < 0 ? [] : lines.slice(i)).map((l) =>
    l
      .replace(/[0-9a-f]{40}/g, '<id>')
      .replace(/pid \d+/, 'pid <pid>')
      .replace(/id=\d+ addr=127\.0\.0\.1:\d+ laddr=127\.0\.0\.1:\d+ fd=\d+/, 'id=<id> addr=<addr> laddr=<laddr> fd=<fd>')
      .replace(/ age=\d+ /, ' age=<age> ')
      .replace(/ rbs=\d+ rbp=\d+ /, ' rbs=<rbs> rbp=<rbp> ')
      .replace(/ tot-mem=\d+ /, ' tot-mem=<mem> '),
  );
}

/** What the child itself logs, which the emulator's child does not report (its copy-on-write). */
const childOnly = (l: string): boolean => !l.startsWith('* Fork CoW for RDB');

/** Writes whose propagation the stream must carry byte for byte. */
const WRITES: string[][] = [
  ['SET', 'b', '2'],
  ['SELECT', '3'],
  ['SET', 'c', '3'],
  ['RPUSH', 'list', 'x', 'y'],
  ['HSET', 'h', 'f', 'v'],
  ['INCRBYFLOAT', 'f', '1.5'],
  ['SET', 'e', 'v', 'EXAT', '4102444800'],
  ['MULTI'],
  ['SET', 'm1', '1'],
  ['SELECT', '5'],
  ['SET', 'm2', '2'],
  ['EXEC'],
  ['SET', 'after', 'exec'],
  ['SELECT', '0'],
  ['DEL', 'nothing-here'],
  ['SET', 'bin\x00\xff', '\r\n'],
];

describe.skipIf(!HAVE_TOOLS)(HAVE_TOOLS ? 'replication with redis-server 7.0.15' : `replication (${NOTICE})`, () => {
  describe('full and partial resynchronization', () => {
    const sides: Side[] = [];
    const peers: Peer[] = [];
    const streams = new Map<string, string>();
    const peer = async (port: number): Promise<Peer> => {
      const p = await Peer.open(port);
      peers.push(p);
      return p;
    };

    beforeAll(async () => {
      sides.push(await startReal(), await startEmulator());
    });

    afterAll(async () => {
      for (const p of peers) p.close();
      for (const s of sides) await s.stop();
    });

    it('SYNC gets "$<len>\\r\\n" and an RDB of the dataset with no CRLF after it, then the stream of writes', async () => {
      await Promise.all(
        sides.map(async (s) => {
          await run(s.port, [['SET', 'a', '1'], ['SELECT', '2'], ['SET', 'z', '26']]);
          const p = await peer(s.port);
          p.command('SYNC');
          await p.until(() => splitBulk(p.bytes) !== null);
          const bulk = splitBulk(p.bytes);
          expect(bulk, s.name).not.toBeNull();
          // SYNC (an old replica, redis-cli --replica) has no +FULLRESYNC line.
          expect(p.bytes.startsWith('$'), s.name).toBe(true);
          const { aux, keys } = rdbContents(bulk!.rdb);
          expect(keys, s.name).toEqual(['0:a', '2:z']);
          expect(aux.get('repl-id'), s.name).toBe((await info(s.port, 'replication')).get('master_replid'));
          expect(aux.get('repl-offset'), s.name).toBe('0');
          expect(aux.get('repl-stream-db'), s.name).toBe('0');
          expect(bulk!.rest, s.name).toBe('');
          await run(s.port, WRITES);
          await p.until(() => splitBulk(p.bytes)!.rest.endsWith('$2\r\n\r\n\r\n'));
          await p.quiet();
          streams.set(s.name, splitBulk(p.bytes)!.rest);
        }),
      );
      expect(streams.get('emulator')).toBe(streams.get('real'));
      expect(streams.get('real')).toContain('*1\r\n$5\r\nMULTI\r\n');
    });

    it('INFO replication and the sync counters show the replica online and the offset of every byte sent', async () => {
      const seen = new Map<string, string[]>();
      await Promise.all(
        sides.map(async (s) => {
          const repl = await info(s.port, 'replication');
          const stats = await info(s.port, 'stats');
          expect(repl.get('master_repl_offset'), s.name).toBe(String(streams.get(s.name)!.length));
          seen.set(s.name, [
            ...[...repl].filter(([k]) => k !== 'master_replid').map(([k, v]) => `${k}:${k.startsWith('slave') ? v.replace(/lag=\d+/, 'lag=<lag>') : v}`),
            ...['sync_full', 'sync_partial_ok', 'sync_partial_err', 'total_net_repl_output_bytes'].map((k) => `${k}:${stats.get(k)}`),
          ]);
        }),
      );
      expect(seen.get('emulator')).toEqual(seen.get('real'));
      expect(seen.get('real')).toContain('slave0:ip=127.0.0.1,port=0,state=online,offset=0,lag=<lag>');
    });

    it('the log tells the steps of the full sync as Redis does', async () => {
      const [real, emu] = sides;
      const from = /asks for synchronization$/;
      expect(logFrom(emu!.log(), from).filter(childOnly)).toEqual(logFrom(real!.log(), from).filter(childOnly));
      expect(logFrom(real!.log(), from)).toContain('* Starting BGSAVE for SYNC with target: disk');
    });

    it('PSYNC ? -1 is told +FULLRESYNC <replid> <offset> before the RDB', async () => {
      const seen = new Map<string, string>();
      await Promise.all(
        sides.map(async (s) => {
          const repl = await info(s.port, 'replication');
          const p = await peer(s.port);
          p.command('PSYNC', '?', '-1');
          await p.until(() => /\r\n/.test(p.bytes) && splitBulk(p.bytes.slice(p.bytes.indexOf('\r\n') + 2)) !== null);
          const line = p.bytes.slice(0, p.bytes.indexOf('\r\n') + 2);
          expect(line, s.name).toBe(`+FULLRESYNC ${repl.get('master_replid')} ${repl.get('master_repl_offset')}\r\n`);
          const bulk = splitBulk(p.bytes.slice(line.length))!;
          expect(rdbContents(bulk.rdb).aux.get('repl-offset'), s.name).toBe(repl.get('master_repl_offset'));
          await run(s.port, [['SET', 'after-psync', '1']]);
          await p.until(() => splitBulk(p.bytes.slice(line.length))!.rest.includes('after-psync'));
          seen.set(s.name, `${line.replace(/[0-9a-f]{40}/, '<id>')}${splitBulk(p.bytes.slice(line.length))!.rest}`);
        }),
      );
      expect(seen.get('emulator')).toBe(seen.get('real'));
    });

    it('PSYNC with the primary ID and an offset in the backlog continues with +CONTINUE and the bytes from that offset', async () => {
      const seen = new Map<string, string[]>();
      await Promise.all(
        sides.map(async (s) => {
          const repl = await info(s.port, 'replication');
          const id = repl.get('master_replid')!;
          const offset = Number(repl.get('master_repl_offset'));
          const out: string[] = [];
          for (const [capa, from] of [[true, offset - 40], [false, offset + 1], [true, 1]] as const) {
            const p = await peer(s.port);
            if (capa) {
              p.command('REPLCONF', 'capa', 'psync2');
              await p.until(() => p.bytes === '+OK\r\n');
              p.bytes = '';
            }
            p.command('PSYNC', id.toUpperCase(), String(from));
            await p.until(() => p.bytes.includes('\r\n'));
            await p.quiet();
            out.push(p.bytes.replaceAll(id, '<id>'));
            p.close();
          }
          const stats = await info(s.port, 'stats');
          out.push(`sync_partial_ok:${stats.get('sync_partial_ok')}`);
          seen.set(s.name, out);
        }),
      );
      expect(seen.get('emulator')).toEqual(seen.get('real'));
      expect(seen.get('real')![1]).toBe('+CONTINUE\r\n');
    });

    it('PSYNC with another ID, or an offset out of the backlog, falls back to a full resync and counts a failed partial one', async () => {
      const seen = new Map<string, string[]>();
      await Promise.all(
        sides.map(async (s) => {
          const repl = await info(s.port, 'replication');
          const out: string[] = [];
          for (const [id, offset] of [['0123456789012345678901234567890123456789', '5'], [repl.get('master_replid')!, '999999']]) {
            const p = await peer(s.port);
            p.command('PSYNC', id, offset);
            await p.until(() => p.bytes.includes('\r\n'));
            out.push(p.bytes.slice(0, p.bytes.indexOf('\r\n')).replace(/[0-9a-f]{40}/, '<id>'));
            p.close();
          }
          const stats = await info(s.port, 'stats');
          out.push(`sync_full:${stats.get('sync_full')}`, `sync_partial_err:${stats.get('sync_partial_err')}`);
          seen.set(s.name, out);
        }),
      );
      expect(seen.get('emulator')).toEqual(seen.get('real'));
      const lines = (s: Side): string[] => logFrom(s.log(), /asks for synchronization$/).filter((l) => /Partial resynchronization|Unable to partial|tried to PSYNC/.test(l));
      expect(lines(sides[1]!)).toEqual(lines(sides[0]!));
    });
  });

  describe('a replica connection', () => {
    const sides: Side[] = [];

    beforeAll(async () => {
      sides.push(await startReal(), await startEmulator());
    });

    afterAll(async () => {
      for (const s of sides) await s.stop();
    });

    it('is flagged S in CLIENT LIST, and is dropped when it sends a command that replies', async () => {
      const seen = new Map<string, string[]>();
      await Promise.all(
        sides.map(async (s) => {
          const p = await Peer.open(s.port);
          p.command('SYNC');
          await p.until(() => splitBulk(p.bytes) !== null);
          const list = String(await command(s.port, ['CLIENT', 'LIST'])).split('\n').filter((l) => l.includes('flags=S'));
          expect(list.length, s.name).toBe(1);
          expect(list[0], s.name).toMatch(/ cmd=sync /);
          // No reply for a replica's second SYNC or its ACKs; a PING's reply would corrupt the stream.
          p.command('SYNC');
          p.command('REPLCONF', 'ACK', '0');
          await new Promise((r) => setTimeout(r, 100));
          expect(p.closed, s.name).toBe(false);
          const before = p.bytes.length;
          p.command('PING');
          await p.until(() => p.closed);
          expect(p.closed, s.name).toBe(true);
          expect(p.bytes.length, s.name).toBe(before);
          const repl = await info(s.port, 'replication');
          seen.set(s.name, [`connected_slaves:${repl.get('connected_slaves')}`, ...logFrom(s.log(), /asks for synchronization$/).filter((l) => l.startsWith('#'))]);
        }),
      );
      expect(seen.get('emulator')).toEqual(seen.get('real'));
      expect(seen.get('real')!.join('\n')).toMatch(/Replica generated a reply to command 'ping', disconnecting it: id=<id> addr=<addr>/);
    });

    it('that asks for a key is refused, dropped, and logged twice: the reply it made and the error the primary sent', async () => {
      const seen = new Map<string, string[]>();
      await Promise.all(
        sides.map(async (s) => {
          const p = await Peer.open(s.port);
          p.command('PSYNC', '?', '-1');
          await p.until(() => splitBulk(p.bytes.slice(p.bytes.indexOf('\r\n') + 2)) !== null);
          p.command('GET', 'foo');
          await p.until(() => p.closed);
          const stats = await info(s.port, 'stats');
          const lines = logFrom(s.log(), /asks for synchronization$/).filter((l) => l.startsWith('#'));
          seen.set(s.name, [`unexpected_error_replies:${stats.get('unexpected_error_replies')}`, ...lines]);
        }),
      );
      expect(seen.get('emulator')).toEqual(seen.get('real'));
      expect(seen.get('real')!.join('\n')).toContain(
        "== CRITICAL == This master is sending an error to its replica: 'Replica can't interact with the keyspace' after processing the command 'get'",
      );
    });

    it('ROLE and INFO show the port and address it announced and the offset it acknowledged', async () => {
      const seen = new Map<string, string[]>();
      await Promise.all(
        sides.map(async (s) => {
          const p = await Peer.open(s.port);
          p.command('REPLCONF', 'listening-port', '7777', 'ip-address', '10.9.8.7');
          await p.until(() => p.bytes === '+OK\r\n');
          p.bytes = '';
          p.command('PSYNC', '?', '-1');
          await p.until(() => splitBulk(p.bytes.slice(p.bytes.indexOf('\r\n') + 2)) !== null);
          p.command('REPLCONF', 'ACK', '5');
          await new Promise((r) => setTimeout(r, 100));
          const role = await RawConnection.open(s.port);
          const raw = await role.commandRaw(['ROLE']);
          role.close();
          const slave = [...(await info(s.port, 'replication'))].find(([k, v]) => k.startsWith('slave') && v.includes('10.9.8.7'));
          seen.set(s.name, [raw, `${slave?.[1].replace(/lag=\d+/, 'lag=<lag>')}`]);
          p.close();
        }),
      );
      expect(seen.get('emulator')).toEqual(seen.get('real'));
      expect(seen.get('real')![1]).toBe('ip=10.9.8.7,port=7777,state=online,offset=5,lag=<lag>');
    });

    it('two replicas that come together share one BGSAVE', async () => {
      const seen = new Map<string, string[]>();
      await Promise.all(
        sides.map(async (s) => {
          await command(s.port, ['SET', `marker-${s.name}`, '1']);
          // A fifth of a second for the one key keeps the BGSAVE running until the second SYNC has come, however loaded the machine.
          await command(s.port, ['CONFIG', 'SET', 'rdb-key-save-delay', '200000']);
          const logged = s.log().length;
          const a = await Peer.open(s.port);
          const b = await Peer.open(s.port);
          a.command('SYNC');
          b.command('SYNC');
          await a.until(() => splitBulk(a.bytes) !== null);
          await b.until(() => splitBulk(b.bytes) !== null);
          expect(splitBulk(b.bytes)!.rdb, s.name).toBe(splitBulk(a.bytes)!.rdb);
          await new Promise((r) => setTimeout(r, 200));
          // The child's own line comes whenever its disk is done: not part of the order compared.
          seen.set(
            s.name,
            logFrom(s.log().slice(logged), /./).filter((l) => childOnly(l) && l !== '* DB saved on disk'),
          );
          a.close();
          b.close();
        }),
      );
      expect(seen.get('emulator')).toEqual(seen.get('real'));
      expect(seen.get('real')).toContain('* Waiting for end of BGSAVE for SYNC');
    });
  });

  describe('the backlog', () => {
    it('of the smallest size keeps what Redis keeps: its first byte, its length, and the replication buffer\'s memory', async () => {
      const fields = ['master_repl_offset', 'repl_backlog_size', 'repl_backlog_first_byte_offset', 'repl_backlog_histlen'];
      const memory = ['mem_replication_backlog', 'mem_total_replication_buffers', 'mem_clients_slaves'];
      const seen = await Promise.all(
        [startReal, startEmulator].map(async (start) => {
          const s = await start();
          const out: string[] = [];
          try {
            // Below the minimum: Redis raises it to 16 KB.
            await command(s.port, ['CONFIG', 'SET', 'repl-backlog-size', '1']);
            out.push(String(await command(s.port, ['CONFIG', 'GET', 'repl-backlog-size'])));
            const p = await Peer.open(s.port);
            p.command('PSYNC', '?', '-1');
            await p.until(() => splitBulk(p.bytes.slice(p.bytes.indexOf('\r\n') + 2)) !== null);
            const c = await RawConnection.open(s.port);
            const snapshot = async (): Promise<void> => {
              const repl = await info(s.port, 'replication');
              const mem = await info(s.port, 'memory');
              out.push([...fields.map((f) => `${f}:${repl.get(f)}`), ...memory.map((f) => `${f}:${mem.get(f)}`)].join(' '));
            };
            let n = 0;
            for (const [count, size] of [[50, 1000], [50, 1000], [30, 30_000], [5, 200_000]] as const) {
              for (let i = 0; i < count; i++) void c.command(['SET', `k${n++}`, 'x'.repeat(size)]);
              await c.command(['PING']);
              await snapshot();
            }
            // Without a replica the backlog alone holds the buffer.
            p.close();
            await new Promise((r) => setTimeout(r, 100));
            await c.command(['SET', 'z', 'y'.repeat(100_000)]);
            await snapshot();
            c.close();
          } finally {
            await s.stop();
          }
          return out;
        }),
      );
      expect(seen[1]).toEqual(seen[0]);
    });
  });

  describe('a replica that stops reading', () => {
    it('is dropped once the stream held for it reaches the output buffer limit', async () => {
      const seen = await Promise.all(
        [startReal, startEmulator].map(async (start) => {
          const s = await start(['--client-output-buffer-limit', 'replica 1mb 0 0']);
          try {
            const p = await Peer.open(s.port);
            p.command('PSYNC', '?', '-1');
            await p.until(() => splitBulk(p.bytes.slice(p.bytes.indexOf('\r\n') + 2)) !== null);
            p.pause();
            const c = await RawConnection.open(s.port);
            // Enough to fill both ends' socket buffers on the loopback, and the megabyte after them.
            const value = 'x'.repeat(1 << 20);
            for (let i = 0; i < 40 && (await info(s.port, 'replication')).get('connected_slaves') !== '0'; i++) {
              await c.command(['SET', `k${i}`, value]);
            }
            c.close();
            p.close();
            return logFrom(s.log(), /asks for synchronization$/)
              .filter((l) => l.startsWith('#'))
              .map((l) => l.replace(/Client id=<id> .* scheduled/, 'Client <info> scheduled'));
          } finally {
            await s.stop();
          }
        }),
      );
      expect(seen[1]).toEqual(seen[0]);
      expect(seen[0]).toEqual([
        '# Client <info> scheduled to be closed ASAP for overcoming of output buffer limits.',
        '# Connection with replica 127.0.0.1:<unknown-replica-port> lost.',
      ]);
    });
  });

  describe('a primary restarted on its own dump.rdb', () => {
    it('keeps its history as the secondary ID, counts on from its offset, and lets a replica of its past continue', async () => {
      const starts = [(dir: string) => startReal(['--dir', dir]), (dir: string) => startEmulator([], dir)];
      const seen = await Promise.all(starts.map(async (start) => {
        const dir = mkdtempSync(join(tmpdir(), 'rw-repl-restart-'));
        const out: string[] = [];
        try {
          let s = await start(dir);
          const p = await Peer.open(s.port);
          p.command('PSYNC', '?', '-1');
          await p.until(() => splitBulk(p.bytes.slice(p.bytes.indexOf('\r\n') + 2)) !== null);
          p.close();
          await run(s.port, [['SET', 'k', 'v'], ['SELECT', '2'], ['SET', 'soon-gone', 'v', 'PX', '300'], ['SAVE']]);
          const before = await info(s.port, 'replication');
          await s.stop();
          // The key expires while the server is down: loading drops it, and its DEL enters the new backlog.
          await new Promise((r) => setTimeout(r, 400));
          s = await start(dir);
          try {
            const after = await info(s.port, 'replication');
            expect(after.get('master_replid2'), s.name).toBe(before.get('master_replid'));
            out.push(...['master_repl_offset', 'second_repl_offset', 'repl_backlog_active', 'repl_backlog_first_byte_offset', 'repl_backlog_histlen'].map((f) => `${f}:${after.get(f)}`));
            const q = await Peer.open(s.port);
            q.command('REPLCONF', 'capa', 'psync2');
            await q.until(() => q.bytes === '+OK\r\n');
            q.bytes = '';
            q.command('PSYNC', before.get('master_replid')!, String(Number(before.get('master_repl_offset')) + 1));
            await q.until(() => q.bytes.includes('\r\n'));
            await q.quiet();
            out.push(q.bytes.replace(after.get('master_replid')!, '<new id>'));
            q.close();
          } finally {
            await s.stop();
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
        return out;
      }));
      expect(seen[1]).toEqual(seen[0]);
      expect(seen[0]![5]).toBe('+CONTINUE <new id>\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n*2\r\n$3\r\nDEL\r\n$9\r\nsoon-gone\r\n');
    });
  });

  describe('SHUTDOWN with a lagging replica', () => {
    it('waits shutdown-timeout for it, asking for an ACK, then reports it and exits', async () => {
      const seen = await Promise.all(
        [startReal, startEmulator].map(async (start) => {
          const s = await start(['--shutdown-timeout', '1']);
          try {
            const p = await Peer.open(s.port);
            p.command('PSYNC', '?', '-1');
            await p.until(() => splitBulk(p.bytes.slice(p.bytes.indexOf('\r\n') + 2)) !== null);
            await command(s.port, ['SET', 'b', '2']);
            const logged = s.log().length;
            const c = await Peer.open(s.port);
            const t0 = Date.now();
            c.command('SHUTDOWN');
            await c.until(() => c.closed, 5000);
            const waitedMs = Date.now() - t0;
            await new Promise((r) => setTimeout(r, 100));
            const rest = splitBulk(p.bytes.slice(p.bytes.indexOf('\r\n') + 2))!.rest;
            p.close();
            return { waitedMs, log: logFrom(s.log().slice(logged), /./), closed: c.closed, rest };
          } finally {
            await s.stop();
          }
        }),
      );
      const [real, emu] = seen;
      // The lag is whole seconds of the wall clock since the last ACK: it can differ by one between two runs.
      const lagless = (log: string[]): string[] => log.map((l) => l.replace(/lag=\d+/, 'lag=<s>'));
      expect(lagless(emu!.log)).toEqual(lagless(real!.log));
      expect(emu!.rest).toBe(real!.rest);
      expect(real!.log).toContain('* Waiting for replicas before shutting down.');
      for (const side of seen) {
        expect(side.closed).toBe(true);
        expect(side.waitedMs).toBeGreaterThan(800);
      }
    });
  });

  describe('a BGSAVE already running', () => {
    it('for another reason makes the replica wait for the next one', async () => {
      const seen = new Map<string, string[]>();
      await Promise.all(
        [startReal, startEmulator].map(async (start) => {
          const s = await start();
          try {
            // A tenth of a second per key keeps the BGSAVE running until SYNC has come, however loaded the machine.
            await command(s.port, ['MSET', 'k1', 'v', 'k2', 'v', 'k3', 'v', 'k4', 'v', 'k5', 'v']);
            await command(s.port, ['CONFIG', 'SET', 'rdb-key-save-delay', '100000']);
            const logged = s.log().length;
            const c = await RawConnection.open(s.port);
            const p = await Peer.open(s.port);
            expect(await c.command(['BGSAVE']), s.name).toMatchObject({ text: 'Background saving started' });
            p.command('SYNC');
            await p.until(() => splitBulk(p.bytes) !== null);
            c.close();
            p.close();
            await new Promise((r) => setTimeout(r, 100));
            seen.set(s.name, logFrom(s.log().slice(logged), /./).filter((l) => childOnly(l) && l !== '* DB saved on disk'));
          } finally {
            await s.stop();
          }
        }),
      );
      expect(seen.get('emulator')).toEqual(seen.get('real'));
      expect(seen.get('real')).toContain("* Can't attach the replica to the current BGSAVE. Waiting for next BGSAVE for SYNC");
    });
  });

  describe('serverCron', () => {
    it('pings the replicas every repl-ping-replica-period seconds, in the stream and its offset', async () => {
      const sides = await Promise.all([startReal(), startEmulator()]);
      try {
        const got = await Promise.all(
          sides.map(async (s) => {
            const p = await Peer.open(s.port);
            p.command('PSYNC', '?', '-1');
            await p.until(() => splitBulk(p.bytes.slice(p.bytes.indexOf('\r\n') + 2)) !== null);
            const head = p.bytes.length;
            await command(s.port, ['CONFIG', 'SET', 'repl-ping-replica-period', '1']);
            await p.until(() => p.bytes.length > head, 3000);
            const stream = p.bytes.slice(head);
            const repl = await info(s.port, 'replication');
            p.close();
            return `${stream} offset=${repl.get('master_repl_offset')}`;
          }),
        );
        expect(got[1]).toBe(got[0]);
        expect(got[0]).toBe('*1\r\n$4\r\nping\r\n offset=14');
      } finally {
        for (const s of sides) await s.stop();
      }
    });
  });

  describe('redis-cli --rdb', () => {
    const dirs: string[] = [];

    afterAll(() => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });

    /** Runs redis-cli without blocking this process (the emulator's server lives in it). */
    const cli = (args: string[]): Promise<{ status: number | null; stderr: string; stdout: string }> =>
      new Promise((resolve, reject) => {
        const child = spawn(REDIS_CLI_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString('latin1')));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString('latin1')));
        child.on('error', reject);
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    const checkRdb = (file: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const child = spawn(CHECK_RDB_BIN, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString('latin1')));
        child.on('error', reject);
        child.on('close', (status) => resolve(`${out}exit ${status}\n`));
      });

    it('--replica gets an RDB without data, then prints the stream once it has sent its ACK', async () => {
      const seen = await Promise.all(
        [startReal, startEmulator].map(async (start) => {
          const s = await start();
          try {
            await run(s.port, [['SET', 'a', '1']]);
            // Line-buffered, or redis-cli would keep the stream it prints until it exits.
            const child = spawn('stdbuf', ['-oL', REDIS_CLI_BIN, '-p', String(s.port), '--replica'], { stdio: ['ignore', 'pipe', 'pipe'] });
            let stdout = '';
            let stderr = '';
            child.stdout.on('data', (d: Buffer) => (stdout += d.toString('latin1')));
            child.stderr.on('data', (d: Buffer) => (stderr += d.toString('latin1')));
            const until = async (ready: () => boolean): Promise<void> => {
              const deadline = Date.now() + 5000;
              while (!ready() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
            };
            // redis-cli waits a second before its first ACK, which starts the stream.
            await until(() => stderr.includes('sending REPLCONF ACK 0'));
            await run(s.port, [['SET', 'b', '2'], ['SELECT', '3'], ['INCR', 'n']]);
            await until(() => stdout.includes('"INCR","n"'));
            // Gone before the server stops, or the server would wait for it to catch up.
            const exited = new Promise((r) => child.once('exit', r));
            child.kill();
            await exited;
            for (let i = 0; i < 100 && (await info(s.port, 'replication')).get('connected_slaves') !== '0'; i++) {
              await new Promise((r) => setTimeout(r, 20));
            }
            return stderr + stdout;
          } finally {
            await s.stop();
          }
        }),
      );
      expect(seen[1]).toBe(seen[0]);
      expect(seen[0]).toContain('SYNC done after 212 bytes. Logging commands from master.');
      // The first thing streamed (SELECT 0) is read as the reply redis-cli awaits to its ACK.
      expect(seen[0]).toContain('"SET","b","2"\n"SELECT","3"\n"INCR","n"\n');
    });

    for (const diskless of ['yes', 'no']) {
      it(`fetches a dump.rdb that redis-check-rdb accepts, printing what it prints against the real server (repl-diskless-sync ${diskless})`, async () => {
        const seen = new Map<string, string>();
        await Promise.all(
          [startReal, startEmulator].map(async (start) => {
            const s = await start(['--repl-diskless-sync', diskless]);
            try {
              await run(s.port, [['SET', 'a', '1'], ['SELECT', '3'], ['RPUSH', 'l', 'x', 'y', 'z'], ['HSET', 'h', 'f', 'v']]);
              const dir = mkdtempSync(join(tmpdir(), 'rw-repl-rdb-'));
              dirs.push(dir);
              const file = join(dir, 'dump.rdb');
              const r = await cli(['-p', String(s.port), '--rdb', file]);
              expect(r.status, s.name).toBe(0);
              const check = await checkRdb(file);
              expect(check, s.name).toContain('\\o/ RDB looks OK! \\o/');
              expect(check, s.name).toContain('[info] 3 keys read');
              const masked = check
                .replaceAll(file, '<file>')
                .replace(/ctime = '\d+'/, "ctime = '<t>'")
                .replace(/used-mem = '\d+'/, "used-mem = '<n>'")
                .replace(/[0-9a-f]{40}/, '<id>');
              // Whether redis-cli hangs up before the end of the pipe is read is a
              // race on either side: diskless, the lines are compared as a set.
              await new Promise((r) => setTimeout(r, 150));
              // Diskless, whether the server reaps the child before it sees
              // redis-cli hang up is a race as well: only then does it log
              // that the transfer completed and that it waits for the
              // replica's ACK (updateSlavesWaitingBgsave, replicaPutOnline).
              const afterHangUp = (l: string): boolean =>
                diskless !== 'yes' || !/^\* (RDB transfer completed, rdb only replica|Streamed RDB transfer with replica)/.test(l);
              const log = logFrom(s.log(), /asks for synchronization$/)
                .filter(childOnly)
                .filter(afterHangUp)
                .map((l) => l.replace(/\d+ replicas still up/, '<n> replicas still up'));
              if (diskless === 'yes') log.sort();
              seen.set(s.name, [r.stderr.replaceAll(file, '<file>'), masked, ...log].join('\n'));
              const after = await info(s.port, 'replication');
              expect(after.get('connected_slaves'), s.name).toBe('0');
            } finally {
              await s.stop();
            }
          }),
        );
        expect(seen.get('emulator')).toBe(seen.get('real'));
      });
    }
  });
});
