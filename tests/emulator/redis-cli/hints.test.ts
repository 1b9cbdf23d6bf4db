import { describe, expect, it } from 'vitest';
import { redisCliAssistData } from '../../../emulator/redis-cli/assist-data.js';
import { commandHint } from '../../../emulator/redis-cli/hints.js';

/**
 * What redis-cli 7.0.15 showed in grey after each line, typed into it on a
 * pseudo-terminal 400 columns wide, connected to redis-server 7.0.15 (null:
 * no hint at all). The hint text is what came between its "\e[0;90;49m"
 * and "\e[0m".
 */
const REAL_HINTS: ReadonlyArray<readonly [string, string | null]> = [
  ["SET", " key value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"],
  ["SET ", "key value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"],
  ["SET k", " value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"],
  ["SET k ", "value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"],
  ["SET k v ", "[NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"],
  ["SET k v NX ", "[NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"],
  ["set k v ex 10 ", "[NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"],
  ["GET ", "key"],
  ["GET k ", ""],
  ["CONFIG GET ", "parameter [parameter ...]"],
  ["config get maxmemory ", "[parameter ...]"],
  ["CONFIG SET ", "parameter value [parameter value ...]"],
  ["CONFIG SET maxmemory 1mb ", "[parameter value ...]"],
  ["config", " "],
  ["config ", ""],
  ["config g", " "],
  ["EXPIRE k ", "seconds [NX|XX|GT|LT]"],
  ["ZADD ", "key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]"],
  ["ZADD z 1 m ", "[NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]"],
  ["XADD s ", "[NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value [field value ...]"],
  ["CLIENT KILL ", "ip:port|[ID client-id]|[TYPE NORMAL|MASTER|SLAVE|REPLICA|PUBSUB]|[USER username]|[ADDR ip:port]|[LADDR ip:port]|[SKIPME yes/no] [[ID client-id]|[TYPE NORMAL|MASTER|SLAVE|REPLICA|PUBSUB]|[USER username]|[ADDR ip:port]|[LADDR ip:port]|[SKIPME yes/no] ...]"],
  ["OBJECT ENCODING ", "key"],
  ["LPUSH q ", "element [element ...]"],
  ["BLPOP ", "key [key ...] timeout"],
  ["BLPOP q 1 ", "[key ...] timeout"],
  ["HSET h f v ", "[field value ...]"],
  ["WATCH ", "key [key ...]"],
  ["MULTI", " "],
  ["MULTI ", ""],
  ["EXEC", " "],
  ["SCAN 0 ", "[MATCH pattern] [COUNT count] [TYPE type]"],
  ["BGSAVE ", "[SCHEDULE]"],
  ["BGREWRITEAOF", " "],
  ["SAVE", " "],
  ["SHUTDOWN ", "[NOSAVE|SAVE] [NOW] [FORCE] [ABORT]"],
  ["GETEX k ", "[EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|PERSIST]"],
  ["SORT k ", "[BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC|DESC] [ALPHA] [STORE destination]"],
  ["xyz ", null],
  ["\"SET\" k", " value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"],
  ["SET \"k", null],
  ["SET k \"v\" ", "[NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"],
  ["help ", null],
  ["SET  k  ", "value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"],
  ["  SET k", " value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"],
  ["DEBUG ", ""],
  ["REPLICAOF ", "host port|NO ONE"],
  ["WAIT ", "numreplicas timeout"],
  ["INFO ", "[section [section ...]]"],
  ["EVAL ", "script numkeys [key [key ...]] [arg [arg ...]]"],
  ["MSET ", "key value [key value ...]"],
  ["MSET a 1 b ", "[key value ...]"],
  ["GEOADD g ", "[NX|XX] [CH] longitude latitude member [longitude latitude member ...]"],
  ["OBJECT", " "],
  ["CLIENT ", ""],
  ["CLIENT NO-EVICT ", "ON|OFF"],
  ["ACL SETUSER ", "username [rule [rule ...]]"],
  ["ZRANGE z 0 -1 ", "[BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]"],
  ["LPOS l e ", "[RANK rank] [COUNT num-matches] [MAXLEN len]"],
  ["MIGRATE ", "host port key|\"\" destination-db timeout [COPY] [REPLACE] [[AUTH password]|[AUTH2 username password]] [KEYS key [key ...]]"],
  ["FUNCTION RESTORE ", "serialized-value [FLUSH|APPEND|REPLACE]"],
  ["COMMAND DOCS ", "[command-name [command-name ...]]"],
  ["3 INCR ", null],
  ["PING ", "[message]"],
  ["SELECT ", "index"],
  ["SET k v NX GET EX 10 KEEPTTL x y z ", "[NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]"],
];

describe('redis-cli hints', () => {
  const { docs } = redisCliAssistData();

  it.each(REAL_HINTS)('after %j shows what redis-cli 7.0 shows', (line, hint) => {
    expect(commandHint(line, docs)).toBe(hint);
  });

  it('shrinks by one argument per argument typed, up to the first optional one', () => {
    const full = 'key value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]';
    expect(commandHint('SET ', docs)).toBe(full);
    expect(commandHint('SET a ', docs)).toBe(full.slice('key '.length));
    expect(commandHint('SET a b ', docs)).toBe(full.slice('key value '.length));
    expect(commandHint('SET a b c d e ', docs)).toBe(full.slice('key value '.length));
  });

  it('shows nothing for a line redis-cli cannot split', () => {
    expect(commandHint('GET "a', docs)).toBeNull();
    expect(commandHint('   ', docs)).toBeNull();
  });
});
