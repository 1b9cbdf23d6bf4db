/**
 * RDB type codes and opcodes (src/rdb.h). RDB_VERSION 10 is what Redis 7.0
 * writes; it reads versions 1 to 10.
 */
export const RDB_VERSION = 10;

export const TYPE_STRING = 0;
export const TYPE_LIST = 1;
export const TYPE_SET = 2;
export const TYPE_ZSET = 3;
export const TYPE_HASH = 4;
export const TYPE_ZSET_2 = 5;
export const TYPE_MODULE = 6;
export const TYPE_MODULE_2 = 7;
export const TYPE_HASH_ZIPMAP = 9;
export const TYPE_LIST_ZIPLIST = 10;
export const TYPE_SET_INTSET = 11;
export const TYPE_ZSET_ZIPLIST = 12;
export const TYPE_HASH_ZIPLIST = 13;
export const TYPE_LIST_QUICKLIST = 14;
export const TYPE_STREAM_LISTPACKS = 15;
export const TYPE_HASH_LISTPACK = 16;
export const TYPE_ZSET_LISTPACK = 17;
export const TYPE_LIST_QUICKLIST_2 = 18;
export const TYPE_STREAM_LISTPACKS_2 = 19;

export const OPCODE_FUNCTION2 = 245;
export const OPCODE_FUNCTION = 246;
export const OPCODE_MODULE_AUX = 247;
export const OPCODE_IDLE = 248;
export const OPCODE_FREQ = 249;
export const OPCODE_AUX = 250;
export const OPCODE_RESIZEDB = 251;
export const OPCODE_EXPIRETIME_MS = 252;
export const OPCODE_EXPIRETIME = 253;
export const OPCODE_SELECTDB = 254;
export const OPCODE_EOF = 255;

/** Whether a byte names a value type (rdbIsObjectType). */
export function isObjectType(t: number): boolean {
  return (t >= 0 && t <= 7) || (t >= 9 && t <= 19);
}
