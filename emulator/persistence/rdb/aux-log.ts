import { strtol } from '../aof/c-stdio.js';
import { asciiLower } from '../../resp/bytes.js';
import { cString } from '../../numbers/c-string.js';

/**
 * The notice Redis's loader logs for an aux field as it reads it (the aux
 * branch of rdbLoadRioWithLoadingCtx in src/rdb.c), or null for the
 * fields it reads silently. `nowS` is the loading server's clock, against
 * which the file's ctime gives its age.
 *
 *   auxLogLine('redis-ver', '7.0.15', now)   // 'Loading RDB produced by version 7.0.15'
 *   auxLogLine('used-mem', '963952', now)    // 'RDB memory usage when created 0.92 Mb'
 */
export function auxLogLine(key: string, value: string, nowS: number): string | null {
  // The field names are compared without regard to case, as strcasecmp does.
  switch (asciiLower(key)) {
    case 'redis-ver':
      return `Loading RDB produced by version ${cString(value)}`;
    case 'ctime': {
      const age = nowS - Number(strtol(value).value);
      return `RDB age ${age < 0 ? 0 : age} seconds`;
    }
    case 'used-mem':
      return `RDB memory usage when created ${(Number(strtol(value).value) / (1024 * 1024)).toFixed(2)} Mb`;
    case 'aof-preamble':
      return strtol(value).value !== 0n ? 'RDB has an AOF tail' : null;
    case 'aof-base':
      return strtol(value).value !== 0n ? 'RDB is base AOF' : null;
    default:
      return null;
  }
}

