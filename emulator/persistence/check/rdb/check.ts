import { bytesFromArray } from '../../../resp/bytes.js';
import { strtol } from '../../aof/c-stdio.js';
import { moduleTypeName, checkModuleValue } from './module.js';
import { cString } from '../../../numbers/c-string.js';
import { CheckState, RdbCorruption } from './report.js';
import { LENERR, Rio } from './rio.js';
import { checkObject } from './values.js';

/**
 * The check redis-check-rdb runs over an RDB file (redis_check_rdb in
 * src/redis-check-rdb.c), over bytes in memory: it prints each aux field
 * and database selection with its offset, checks every value as the
 * loader would with deep sanitization, verifies the CRC64, and counts keys
 * and expiries. redis-check-aof runs the same check over the RDB part at
 * the start of an AOF.
 */

export interface RdbCheckResult {
  /** 'ok', 'error' (the tool returns 1), or 'exit' (the loader ended the process after its report). */
  outcome: 'ok' | 'error' | 'exit';
  /** Where the file position is when the check returns: the end of the RDB part when it is sound. */
  end: number;
  /**
   * The checker's state as it was left. The check installs handlers that
   * report a later crash of the process as a damaged RDB, with this state
   * (rdbCheckHandleCrash), which redis-check-aof can run into afterwards.
   */
  state: CheckState;
}

export interface RdbCheckHooks {
  out: (text: string) => void;
  /** Prints a serverLog warning (the tool's "Terminating server after rdb file reading failure."). */
  logWarning: (text: string) => void;
  /** The time the check starts, against which expiry times count as already expired. */
  nowMs: number;
}

const RDB_VERSION = 10;

const OPCODE_FUNCTION2 = 245;
const OPCODE_FUNCTION = 246;
const OPCODE_MODULE_AUX = 247;
const OPCODE_IDLE = 248;
const OPCODE_FREQ = 249;
const OPCODE_AUX = 250;
const OPCODE_RESIZEDB = 251;
const OPCODE_EXPIRETIME_MS = 252;
const OPCODE_EXPIRETIME = 253;
const OPCODE_SELECTDB = 254;
const OPCODE_EOF = 255;

const MODULE_OPCODE_UINT = 2n;

function isObjectType(t: number): boolean {
  return (t >= 0 && t <= 7) || (t >= 9 && t <= 19);
}

function text(b: Uint8Array): string {
  return cString(bytesFromArray(b));
}

/**
 * Checks the RDB that starts at the beginning of `data`, printing what
 * redis_check_rdb_main prints from "Checking RDB file <name>" on.
 *
 *   checkRdb(bytes, 'dump.rdb', { out, logWarning, nowMs });
 *   // [offset 0] Checking RDB file dump.rdb
 *   // [offset 27] AUX FIELD redis-ver = '7.0.15'
 *   // ...
 *   // [offset 103] \o/ RDB looks OK! \o/
 */
export function checkRdb(data: Uint8Array, name: string, hooks: RdbCheckHooks): RdbCheckResult {
  const rio = new Rio(data);
  const st = new CheckState(hooks.out, () => rio.processed);
  hooks.out(`[offset 0] Checking RDB file ${name}\n`);
  try {
    const ok = walk(rio, st, hooks.nowMs);
    if (ok) {
      st.info('\\o/ RDB looks OK! \\o/');
      st.showGenericInfo();
    }
    return { outcome: ok ? 'ok' : 'error', end: rio.pos, state: st };
  } catch (e) {
    if (!(e instanceof RdbCorruption)) throw e;
    st.loaderError(e);
    hooks.logWarning('Terminating server after rdb file reading failure.');
    return { outcome: 'exit', end: rio.pos, state: st };
  }
}

/** True when the file is sound; false after printing why not. */
function walk(r: Rio, st: CheckState, nowMs: number): boolean {
  const eof = (): false => {
    st.error('Unexpected EOF reading RDB file');
    return false;
  };
  const header = r.read(9);
  if (header === null) return eof();
  if (bytesFromArray(header, 0, 5) !== 'REDIS') {
    st.error('Wrong signature trying to load DB from file');
    return false;
  }
  const version = Number(BigInt.asIntN(32, strtol(cString(bytesFromArray(header, 5, 9))).value));
  if (version < 1 || version > RDB_VERSION) {
    st.error(`Can't handle RDB format version ${version}`);
    return false;
  }

  let expireAtMs = -1n;
  for (;;) {
    st.doing = 'read-type';
    const type = r.u8();
    if (type === -1) return eof();

    if (type === OPCODE_EXPIRETIME) {
      st.doing = 'read-expire';
      const t = r.read(4);
      if (t === null) return eof();
      expireAtMs = BigInt(new DataView(t.buffer, t.byteOffset, 4).getInt32(0, true)) * 1000n;
      continue;
    }
    if (type === OPCODE_EXPIRETIME_MS) {
      st.doing = 'read-expire';
      const t = r.i64();
      if (t === null) return eof();
      expireAtMs = t;
      continue;
    }
    if (type === OPCODE_FREQ) {
      if (r.read(1) === null) return eof();
      continue;
    }
    if (type === OPCODE_IDLE) {
      if (r.len() === LENERR) return eof();
      continue;
    }
    if (type === OPCODE_EOF) break;
    if (type === OPCODE_SELECTDB) {
      st.doing = 'read-len';
      const db = r.len();
      if (db === LENERR) return eof();
      st.info(`Selecting DB ID ${db}`);
      continue;
    }
    if (type === OPCODE_RESIZEDB) {
      st.doing = 'read-len';
      if (r.len() === LENERR || r.len() === LENERR) return eof();
      continue;
    }
    if (type === OPCODE_AUX) {
      st.doing = 'read-aux';
      const key = r.string();
      if (key === null) return eof();
      const value = r.string();
      if (value === null) return eof();
      st.info(`AUX FIELD ${text(key)} = '${text(value)}'`);
      continue;
    }
    if (type === OPCODE_MODULE_AUX) {
      st.doing = 'read-module-aux';
      const id = r.len();
      if (id === LENERR) return eof();
      const whenOpcode = r.len();
      if (whenOpcode === LENERR) return eof();
      if (r.len() === LENERR) return eof();
      if (whenOpcode !== MODULE_OPCODE_UINT) {
        st.error('bad when_opcode');
        return false;
      }
      const name = moduleTypeName(id);
      st.info(`MODULE AUX for: ${name}`);
      if (!checkModuleValue(r, name)) return eof();
      continue;
    }
    if (type === OPCODE_FUNCTION || type === OPCODE_FUNCTION2) {
      st.doing = 'read-functions';
      const err = readFunction(r, type);
      if (err !== null) {
        st.error(`Failed loading library, ${err}`);
        return false;
      }
      continue;
    }
    if (!isObjectType(type)) {
      st.error(`Invalid object type: ${type}`);
      return false;
    }
    st.keyType = type;

    st.doing = 'read-key';
    const key = r.string();
    if (key === null) return eof();
    st.key = bytesFromArray(key);
    st.keys++;
    st.doing = 'read-object-value';
    if (!checkObject(r, type)) return eof();
    if (expireAtMs !== -1n && expireAtMs < BigInt(nowMs)) st.alreadyExpired++;
    if (expireAtMs !== -1n) st.expires++;
    st.key = null;
    st.keyType = -1;
    expireAtMs = -1n;
  }

  if (version >= 5) {
    const expected = r.crc.value;
    st.doing = 'check-sum';
    const stored = r.read(8);
    if (stored === null) return eof();
    let got = 0n;
    for (let i = 7; i >= 0; i--) got = (got << 8n) | BigInt(stored[i]!);
    if (got === 0n) {
      st.info('RDB file was saved with checksum disabled: no check performed.');
    } else if (got !== expected) {
      st.error('RDB CRC error');
      return false;
    } else {
      st.info('Checksum OK');
    }
  }
  return true;
}

/** rdbFunctionLoad without a library context: only reads; returns its error text, or null. */
function readFunction(r: Rio, type: number): string | null {
  if (type === OPCODE_FUNCTION2) return r.string() === null ? 'Failed loading library payload' : null;
  // The format of the 7.0 release candidates.
  if (r.string() === null) return 'Failed loading library name';
  if (r.string() === null) return 'Failed loading engine name';
  const hasDescription = r.len();
  if (hasDescription === LENERR) return 'Failed loading library description indicator';
  if (hasDescription !== 0n && r.string() === null) return 'Failed loading library description';
  if (r.string() === null) return 'Failed loading library blob';
  return null;
}
