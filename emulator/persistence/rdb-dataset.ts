import { expireIn, setExpireExact } from '../keyspace/expire-exact.js';
import { debugSettings } from '../server/debug-settings.js';
import { lfuCounter } from '../server/lfu.js';
import type { Database } from '../keyspace/database.js';
import type { Int64 } from '../numbers/int64.js';
import type { RedisServer } from '../server/server.js';
import type { RdbReplicationInfo } from '../replication/state.js';
import { REDIS_VERSION, usedMemory } from '../server/info.js';
import type { LoadedKey, RdbContents, RdbReadOptions } from './rdb/file-reader.js';
import { auxLogLine } from './rdb/aux-log.js';
import { keyRecord, RdbStreamWriter, writeRdb, type RdbDatabase, type RdbKey, type RdbWriteOptions } from './rdb/file-writer.js';
import { ForkView, markWritten, writtenKeys } from '../keyspace/fork-view.js';
import type { Value } from '../keyspace/values.js';
import type { AccessStamps } from '../keyspace/access-stamps.js';
import type { ValueReadOptions } from './rdb/value-reader.js';
import type { ValueWriteOptions } from './rdb/value-writer.js';

/**
 * The server's dataset as the codec sees it, and back: the options the
 * configuration implies, a snapshot of the databases to write, and the
 * placing of loaded keys into databases.
 */

/** The LRU clock is 24 bits of seconds (LRU_CLOCK_MAX). */
const LRU_CLOCK_MAX = (1 << 24) - 1;
/** The LFU counter of a value never accessed since it was made (LFU_INIT_VAL). */
const LFU_INIT_VAL = 5;

export function valueWriteOptions(server: RedisServer): ValueWriteOptions {
  const cfg = server.config;
  return {
    compression: cfg.getBool('rdbcompression'),
    fill: cfg.getNumber('list-max-listpack-size'),
    compressDepth: cfg.getNumber('list-compress-depth'),
    packedThreshold: debugSettings(server).quicklistPackedThreshold,
  };
}

export function valueReadOptions(server: RedisServer): ValueReadOptions {
  const cfg = server.config;
  return {
    hashMaxListpackEntries: cfg.getNumber('hash-max-listpack-entries'),
    hashMaxListpackValue: cfg.getNumber('hash-max-listpack-value'),
    setMaxIntsetEntries: cfg.getNumber('set-max-intset-entries'),
    zsetMaxListpackEntries: cfg.getNumber('zset-max-listpack-entries'),
    zsetMaxListpackValue: cfg.getNumber('zset-max-listpack-value'),
    deepSanitize: cfg.get('sanitize-dump-payload') === 'yes',
    onDeepCheck: () => {
      server.stats.dumpPayloadSanitizations++;
    },
  };
}

/** What differs between one rdbLoad and another: the caller's rdbflags and where its lines go. */
export interface RdbLoadSettings {
  /** The load time, against which expiry times and the file's age are compared. */
  nowMs: number;
  /** Leave out keys already expired (a primary loading a snapshot; not a replica, not an AOF preamble). */
  dropExpired: boolean;
  /** RDBFLAGS_ALLOW_DUP (DEBUG RELOAD MERGE). */
  allowDuplicates?: boolean;
  /** Where the loader logs the aux fields it reports as it reads them. */
  log: (line: string) => void;
  onExpired?: (db: number, key: string) => void;
}

/**
 * rdbLoad's options for this server, the same for every load (at start,
 * DEBUG RELOAD, an AOF's preamble, a replica's sync): the configured
 * encodings and sanitization, the checksum unless rdbchecksum is off or
 * DEBUG SET-SKIP-CHECKSUM-VALIDATION is on (rdbLoadRioWithLoadingCtx),
 * and the aux fields logged.
 */
export function rdbLoadOptions(server: RedisServer, load: RdbLoadSettings): RdbReadOptions {
  const nowS = Math.floor(load.nowMs / 1000);
  const options: RdbReadOptions = {
    ...valueReadOptions(server),
    databases: server.dbs.length,
    verifyChecksum: server.config.getBool('rdbchecksum') && !debugSettings(server).skipChecksumValidation,
    nowMs: load.nowMs,
    dropExpired: load.dropExpired,
    allowDuplicates: load.allowDuplicates ?? false,
    onAux: (key, value) => {
      const line = auxLogLine(key, value, nowS);
      if (line !== null) load.log(line);
    },
  };
  if (load.onExpired !== undefined) options.onExpired = load.onExpired;
  return options;
}

/** The end of rdbLoadRio: the figures INFO's rdb_last_load_keys_* show, and the line it logs. */
export function doneLoadingRdb(server: RedisServer, loaded: { keysLoaded: number; keysExpired: number }): string {
  const p = server.stats.persistence;
  p.rdbLastLoadKeysExpired = loaded.keysExpired;
  p.rdbLastLoadKeysLoaded = loaded.keysLoaded;
  return `Done loading RDB, keys loaded: ${loaded.keysLoaded}, keys expired: ${loaded.keysExpired}.`;
}

/** Which access data the policy keeps with each key in a file: IDLE under LRU, FREQ under LFU. */
export function accessKind(server: RedisServer): 'lru' | 'lfu' | null {
  const policy = server.config.get('maxmemory-policy');
  if (policy.endsWith('-lru')) return 'lru';
  if (policy.endsWith('-lfu')) return 'lfu';
  return null;
}

/** The databases as rdbSaveDb walks them. */
export function snapshotDatabases(server: RedisServer): RdbDatabase[] {
  const kind = accessKind(server);
  return server.dbs.map((db) => ({ id: db.id, size: db.dict.size, expiresSize: db.expires.size, keys: keysOf(server, db, kind) }));
}

function* keysOf(server: RedisServer, db: Database, kind: 'lru' | 'lfu' | null): Generator<RdbKey> {
  for (const [key, value] of db.dict) yield rdbKeyOf(server, kind, key, value, db.expires, db.access);
}

/** A key as the file stores it, from the tables that hold its expiry and access data. */
function rdbKeyOf(server: RedisServer, kind: 'lru' | 'lfu' | null, key: string, value: Value, expires: Map<string, number>, access: AccessStamps): RdbKey {
  const k: RdbKey = { key, value };
  const when = expires.size === 0 ? undefined : expireIn(expires, key);
  if (when !== undefined) k.expireAtMs = when;
  if (kind === 'lru') {
    const now = server.lruClock;
    const last = access.get(key) ?? now;
    k.idleSeconds = now >= last ? now - last : now + (LRU_CLOCK_MAX - last);
  } else if (kind === 'lfu') {
    k.lfuFreq = lfuCounter(server, access.get(key) ?? LFU_INIT_VAL);
  }
  return k;
}

/**
 * The RDB file a BGSAVE child writes, from the dataset as it was at the
 * fork (a ForkView the server keeps up to date as it goes on writing),
 * a piece at a time, so the child's work is spread over its run.
 *
 *   const w = new ForkedRdbWriter(server);       // at the fork
 *   for (let b; (b = w.step(256 * 1024)) !== null; ) file.write(b);
 *   w.release();
 */
export class ForkedRdbWriter {
  readonly view: ForkView;
  readonly keysTotal: number;
  keysWritten = 0;
  private readonly stream: RdbStreamWriter;
  private readonly opts: ValueWriteOptions;
  private readonly kind: 'lru' | 'lfu' | null;
  private db = -1;
  private live: Iterator<[string, Value]> | null = null;
  private tail: Iterator<[string, Uint8Array | null]> | null = null;
  private ended = false;

  constructor(
    private readonly server: RedisServer,
    stamp: SaveStamp = {},
  ) {
    this.kind = accessKind(server);
    this.opts = valueWriteOptions(server);
    const kind = this.kind;
    const opts = this.opts;
    this.view = new ForkView(server.dbs, (db, key, value) => keyRecord(rdbKeyOf(server, kind, key, value, db.expires, db.access), opts));
    server.forkViews.push(this.view);
    this.keysTotal = this.view.dbs.reduce((n, f) => n + f.size, 0);
    this.stream = new RdbStreamWriter(rdbWriteOptions(server, stamp));
    this.stream.header();
  }

  /** About `maxBytes` more of the file (at least one key's worth), or null once it has all been given. */
  step(maxBytes: number): Uint8Array | null {
    if (this.ended) return null;
    const s = this.stream;
    while (s.pending < maxBytes) {
      if (!this.advance()) {
        this.ended = true;
        this.release();
        return s.end();
      }
    }
    return s.take();
  }

  /** Writes the next key (or opens the next database); false when there is nothing left. */
  private advance(): boolean {
    const f = this.view.dbs[this.db];
    if (f !== undefined && this.live !== null) {
      const n = this.live.next();
      if (!n.done) {
        const [key, value] = n.value;
        // A key written earlier that the parent deleted and made again.
        if (f.remade.size !== 0 && f.remade.has(key)) return true;
        const saved = f.saved.get(key);
        // A key made after the fork is not the child's.
        if (saved === null) return true;
        if (saved !== undefined) this.stream.record(saved);
        else this.stream.key(rdbKeyOf(this.server, this.kind, key, value, f.expires, f.access));
        markWritten(f, key, true);
        this.keysWritten++;
        return true;
      }
      this.live = null;
      this.tail = f.saved.entries();
    }
    if (f !== undefined && this.tail !== null) {
      const n = this.tail.next();
      if (!n.done) {
        // Keys deleted since the fork that the walk did not reach.
        const [key, record] = n.value;
        if (record !== null && !writtenKeys(f).has(key)) {
          this.stream.record(record);
          markWritten(f, key, false);
          this.keysWritten++;
        }
        return true;
      }
      this.tail = null;
    }
    this.db++;
    const next = this.view.dbs[this.db];
    if (next === undefined) return false;
    if (next.size !== 0) {
      this.stream.selectDb(next);
      this.live = next.dict.entries();
    }
    return true;
  }

  /** The child is done or gone: the parent stops keeping keys for it. */
  release(): void {
    const views = this.server.forkViews;
    const at = views.indexOf(this.view);
    if (at >= 0) views.splice(at, 1);
  }
}

export interface SaveStamp {
  ctimeSeconds?: number;
  usedMemoryBytes?: number;
  /**
   * The replication fields to write (repl-stream-db, repl-id, repl-offset);
   * by default what the server's replication state gives now, none on a
   * server that is in no replication chain.
   */
  replication?: RdbReplicationInfo | null;
  /** Leave the databases out (a replica's rdb-filter-only); the function libraries stay. */
  excludeData?: boolean;
  /** The file is the base of a multi-part AOF (the aof-base aux field). */
  aofBase?: boolean;
}

/** rdbPopulateSaveInfo for a save made now, unless the stamp says otherwise. */
function replicationAux(server: RedisServer, stamp: SaveStamp): RdbReplicationInfo | undefined {
  const info = stamp.replication === undefined ? server.replication.rdbSaveInfo() : stamp.replication;
  return info ?? undefined;
}

/**
 * How the server writes an RDB file now, in one piece (saveRdb) or a
 * slice at a time (a forked child's writer): its encodings, checksum, aux
 * fields (rdbSaveInfoAuxFields, with the replication fields
 * rdbPopulateSaveInfo gives) and function libraries.
 */
function rdbWriteOptions(server: RedisServer, stamp: SaveStamp): RdbWriteOptions {
  return {
    ...valueWriteOptions(server),
    checksum: server.config.getBool('rdbchecksum'),
    aux: {
      redisVersion: REDIS_VERSION,
      ctimeSeconds: stamp.ctimeSeconds ?? Math.floor(server.nowMs / 1000),
      usedMemoryBytes: stamp.usedMemoryBytes ?? usedMemory(server),
      aofBase: stamp.aofBase === true,
      replication: replicationAux(server, stamp),
    },
    functions: server.functions.codes(),
  };
}

/** The RDB file the server would write now (rdbSaveRio, with the replication fields rdbPopulateSaveInfo gives). */
export function saveRdb(server: RedisServer, stamp: SaveStamp = {}): Uint8Array {
  return writeRdb(stamp.excludeData === true ? [] : snapshotDatabases(server), rdbWriteOptions(server, stamp));
}

/**
 * Puts loaded keys into the server's databases. A key that is already
 * there is replaced when `replace` (DEBUG RELOAD MERGE); otherwise it is
 * left out and reported, where Redis would stop with "Duplicated key
 * found in RDB file".
 */
export function placeLoadedKeys(server: RedisServer, contents: RdbContents, replace: boolean): string[] {
  const clashes: string[] = [];
  const lfu = accessKind(server) === 'lfu';
  for (const [id, keys] of contents.databases) {
    const db = server.dbs[id]!;
    // The keys of one database in a file are distinct, so an empty database
    // (a server starting) cannot clash: a lookup per key spared.
    const empty = db.dict.size === 0;
    for (const [key, k] of keys) {
      if (!empty && db.dict.has(key)) {
        if (!replace) {
          clashes.push(key);
          continue;
        }
        db.delete(key);
      }
      db.addLoaded(key, k.value);
      placeKeyData(server, db, key, k, lfu);
    }
  }
  return clashes;
}

/**
 * The file's function libraries into the server's (rdbFunctionLoad into
 * the current libraries): a library already there is replaced when
 * `replace` (RDBFLAGS_ALLOW_DUP), otherwise the load fails with the line
 * Redis logs, which is returned.
 */
export function placeLoadedFunctions(server: RedisServer, contents: RdbContents, replace: boolean): string | null {
  for (const code of contents.functions) {
    const r = server.functions.create(code, replace, true);
    if ('error' in r) return `Failed loading library, ${r.error}`;
  }
  return null;
}

/** A placed key's expiry, and the file's access data when the policy keeps that kind (objectSetLRUOrLFU). */
export function placeKeyData(server: RedisServer, db: Database, key: string, k: LoadedKey, lfu: boolean): void {
  if (k.expireAtMs !== undefined) setExpireExact(db, key, k.expireAtMs);
  if (lfu) {
    if (k.lfuFreq !== undefined) db.access.set(key, lfuDataWithCounter(server, k.lfuFreq));
  } else if (k.idleSeconds !== undefined) {
    db.access.set(key, lruClockBefore(server.lruClock, k.idleSeconds));
  }
}

/**
 * The LRU clock value of an access `idleSeconds` ago (objectSetLRUOrLFU):
 * wrapped once into the clock's range, then cut to its 24 bits, as the C
 * bit field does with a time further back than the clock can tell.
 */
export function lruClockBefore(lruClock: number, idleSeconds: Int64): number {
  // lru_idle * 1000 / 1000 in 64-bit arithmetic, which may wrap.
  let at = BigInt(lruClock) - BigInt.asIntN(64, BigInt(idleSeconds) * 1000n) / 1000n;
  if (at < 0n) at += BigInt(LRU_CLOCK_MAX);
  return Number(BigInt.asUintN(24, at));
}

/** LFU access data holding `counter`, stamped with the current minute. */
export function lfuDataWithCounter(server: RedisServer, counter: number): number {
  return ((Math.floor(server.nowMs / 60000) & 0xffff) << 8) | counter;
}

/**
 * rdb-key-save-delay: a child sleeps that many microseconds after each key
 * it writes (rdbSaveKeyValuePair, and the AOF rewrite's loop, call
 * debugDelay), which tests use to keep a save running; a negative -N sleeps
 * one microsecond for one key in N (debugDelay draws it at random, here it
 * is every Nth key).
 */
export function keySaveDelayUs(keys: number, delayUs: number): number {
  if (delayUs >= 0) return keys * delayUs;
  return Math.floor(keys / -delayUs);
}
