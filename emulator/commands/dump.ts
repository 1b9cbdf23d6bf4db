import { INT64_MAX, INT64_MIN, type Int64 } from '../numbers/int64.js';
import { bytesFromArray, bytesToArray } from '../resp/bytes.js';
import { ErrorReply, OK, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { NOTIFY, notifyKeyspaceEvent } from '../server/notify.js';
import { createDumpPayload, loadDumpPayload, verifyDumpPayload, RdbError } from '../persistence/rdb/index.js';
import { lfuDataWithCounter, lruClockBefore, valueReadOptions, valueWriteOptions } from '../persistence/rdb-dataset.js';
import { debugSettings } from '../server/debug-settings.js';
import { int64Arg, opt } from './args.js';
import { NOT_INTEGER, SYNTAX_ERROR } from '../server/errors.js';
import { setExpireBy } from './set-expire.js';
import type { Handler } from '../server/command-table.js';

/**
 * DUMP and RESTORE (src/cluster.c): a value travels as its RDB
 * serialization followed by the RDB version and a CRC64.
 */

const BUSYKEY = new ErrorReply('BUSYKEY Target key name already exists.');
const BAD_PAYLOAD = errorReply('DUMP payload version or checksum are wrong');
const BAD_FORMAT = errorReply('Bad data format');

function dump(c: Client, argv: string[]): Reply {
  const v = c.db.lookupRead(argv[1]!);
  if (v === undefined) return null;
  return bytesFromArray(createDumpPayload(v, valueWriteOptions(c.server)));
}

interface RestoreOptions {
  replace: boolean;
  absttl: boolean;
  idleSeconds: Int64 | null;
  lfuFreq: number | null;
}

/** REPLACE, ABSTTL, IDLETIME seconds, FREQ frequency; IDLETIME and FREQ exclude each other. */
function parseRestoreOptions(argv: string[]): RestoreOptions | ErrorReply {
  const o: RestoreOptions = { replace: false, absttl: false, idleSeconds: null, lfuFreq: null };
  for (let j = 4; j < argv.length; j++) {
    const name = opt(argv[j]!);
    const hasArg = j + 1 < argv.length;
    if (name === 'replace') {
      o.replace = true;
    } else if (name === 'absttl') {
      o.absttl = true;
    } else if (name === 'idletime' && hasArg && o.lfuFreq === null) {
      const idle = int64Arg(argv[++j]!);
      if (idle === null) return NOT_INTEGER;
      if (idle < 0) return errorReply('Invalid IDLETIME value, must be >= 0');
      o.idleSeconds = idle;
    } else if (name === 'freq' && hasArg && o.idleSeconds === null) {
      const freq = int64Arg(argv[++j]!);
      if (freq === null) return NOT_INTEGER;
      if (freq < 0 || freq > 255) return errorReply('Invalid FREQ value, must be >= 0 and <= 255');
      o.lfuFreq = Number(freq);
    } else {
      return SYNTAX_ERROR;
    }
  }
  return o;
}

function restore(c: Client, argv: string[]): Reply {
  const key = argv[1]!;
  const opts = parseRestoreOptions(argv);
  if (opts instanceof ErrorReply) return opts;
  const db = c.db;
  const server = c.server;
  if (!opts.replace && db.lookupWrite(key) !== undefined) return BUSYKEY;
  const ttlArg = int64Arg(argv[2]!);
  if (ttlArg === null) return NOT_INTEGER;
  if (ttlArg < 0) return errorReply('Invalid TTL value, must be >= 0');

  const payload = bytesToArray(argv[3]!);
  if (!verifyDumpPayload(payload, debugSettings(server).skipChecksumValidation)) return BAD_PAYLOAD;
  const mode = server.config.get('sanitize-dump-payload');
  const value = loadDumpPayload(payload, { ...valueReadOptions(server), deepSanitize: mode === 'yes' || mode === 'clients' });
  if (value instanceof RdbError) return BAD_FORMAT;

  const deleted = opts.replace && db.delete(key);
  let ttl = BigInt(ttlArg);
  // A relative TTL becomes absolute; like the C addition it wraps on overflow.
  if (ttl !== 0n && !opts.absttl) ttl = BigInt.asIntN(64, ttl + BigInt(server.nowMs));
  if (ttl !== 0n && server.alreadyExpired(ttl)) {
    // Already expired (checkAlreadyExpired): nothing is created, and a
    // replaced key is deleted for good, which replicas learn as a DEL.
    if (deleted) {
      c.propagateArgv = ['DEL', key];
      server.keyModified(db, key);
      notifyKeyspaceEvent(server, NOTIFY.GENERIC, 'del', key, db.id);
      server.dirty++;
    }
    return OK;
  }

  db.add(key, value);
  if (ttl !== 0n) {
    setExpireBy(c, db, key, normalizeInt64(ttl));
    // Replicas and the AOF get the absolute time, so that they expire the key when this server does.
    if (!opts.absttl) c.propagateArgv = [...argv.slice(0, 2), ttl.toString(), ...argv.slice(3), 'ABSTTL'];
  }
  setAccessData(c, key, opts);
  server.keyModified(db, key);
  notifyKeyspaceEvent(server, NOTIFY.GENERIC, 'restore', key, db.id);
  server.dirty++;
  return OK;
}

function normalizeInt64(v: bigint): Int64 {
  if (v > INT64_MAX || v < INT64_MIN) throw new Error('int64 out of range');
  return v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : v;
}

/** objectSetLRUOrLFU: FREQ under an LFU policy, IDLETIME under any other. */
function setAccessData(c: Client, key: string, o: RestoreOptions): void {
  const server = c.server;
  if (server.config.get('maxmemory-policy').endsWith('-lfu')) {
    if (o.lfuFreq !== null) c.db.access.set(key, lfuDataWithCounter(server, o.lfuFreq));
  } else if (o.idleSeconds !== null) {
    c.db.access.set(key, lruClockBefore(server.lruClock, o.idleSeconds));
  }
}

// RESTORE-ASKING is RESTORE for a cluster's slot migration (the same restoreCommand).
export const dumpCommands: Record<string, Handler> = { dump, restore, 'restore-asking': restore };
