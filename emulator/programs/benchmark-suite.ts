import { encodeCommand } from '../resp/encode.js';

/**
 * The tests redis-benchmark 7.0.15 runs when no command is given, in its
 * order, with the commands it sends (src/redis-benchmark.c main). Keys
 * hold the placeholder __rand_int__, replaced per request under -r.
 */
export interface SuiteTest {
  /** The title the tool prints. */
  readonly title: string;
  /** -t names that select it (after lower-casing). */
  readonly selectors: readonly string[];
  /** The request's bytes (a byte string) for a payload of `data` and whether -r was given. */
  readonly request: (data: string, randomKeys: boolean) => string;
}

const LRANGE_SELECTORS = ['lrange', 'lrange_100', 'lrange_300', 'lrange_500', 'lrange_600'];

function cmd(...argv: string[]): string {
  return encodeCommand(argv);
}

function lrange(count: number): SuiteTest {
  return {
    title: `LRANGE_${count} (first ${count} elements)`,
    selectors: ['lrange', `lrange_${count}`],
    request: () => cmd('LRANGE', 'mylist', '0', String(count - 1)),
  };
}

export const SUITE: readonly SuiteTest[] = [
  // The inline form, a bare line, unlike every other test.
  { title: 'PING_INLINE', selectors: ['ping_inline', 'ping'], request: () => 'PING\r\n' },
  { title: 'PING_MBULK', selectors: ['ping_mbulk', 'ping'], request: () => cmd('PING') },
  { title: 'SET', selectors: ['set'], request: (d) => cmd('SET', 'key:__rand_int__', d) },
  { title: 'GET', selectors: ['get'], request: () => cmd('GET', 'key:__rand_int__') },
  { title: 'INCR', selectors: ['incr'], request: () => cmd('INCR', 'counter:__rand_int__') },
  { title: 'LPUSH', selectors: ['lpush'], request: (d) => cmd('LPUSH', 'mylist', d) },
  { title: 'RPUSH', selectors: ['rpush'], request: (d) => cmd('RPUSH', 'mylist', d) },
  { title: 'LPOP', selectors: ['lpop'], request: () => cmd('LPOP', 'mylist') },
  { title: 'RPOP', selectors: ['rpop'], request: () => cmd('RPOP', 'mylist') },
  { title: 'SADD', selectors: ['sadd'], request: () => cmd('SADD', 'myset', 'element:__rand_int__') },
  { title: 'HSET', selectors: ['hset'], request: (d) => cmd('HSET', 'myhash', 'element:__rand_int__', d) },
  { title: 'SPOP', selectors: ['spop'], request: () => cmd('SPOP', 'myset') },
  {
    title: 'ZADD',
    selectors: ['zadd'],
    // Under -r the score is random too; otherwise every member scores 0.
    request: (_d, r) => cmd('ZADD', 'myzset', r ? '__rand_int__' : '0', 'element:__rand_int__'),
  },
  { title: 'ZPOPMIN', selectors: ['zpopmin'], request: () => cmd('ZPOPMIN', 'myzset') },
  { title: 'LPUSH (needed to benchmark LRANGE)', selectors: LRANGE_SELECTORS, request: (d) => cmd('LPUSH', 'mylist', d) },
  lrange(100),
  lrange(300),
  lrange(500),
  lrange(600),
  {
    title: 'MSET (10 keys)',
    selectors: ['mset'],
    request: (d) => {
      const argv = ['MSET'];
      for (let i = 0; i < 10; i++) argv.push('key:__rand_int__', d);
      return encodeCommand(argv);
    },
  },
];

/** Whether -t (kept as ",a,b,") names one of a test's selectors; no -t selects everything. */
export function isSelected(tests: string | null, test: SuiteTest): boolean {
  if (tests === null) return true;
  return test.selectors.some((name) => tests.includes(`,${name},`));
}

/**
 * The payload generator of the real tool: a 32-bit linear congruential
 * sequence seeded with 1234, each byte '0' plus six bits of the state, so
 * the default 3-byte value is "VXK". The state carries over between calls
 * (each -l round gets new bytes).
 */
export class PayloadGenerator {
  private state = 1234;

  next(size: number): string {
    let out = '';
    for (let i = 0; i < size; i++) {
      this.state = (Math.imul(this.state, 1103515245) + 12345) >>> 0;
      out += String.fromCharCode(48 + ((this.state >>> 16) & 63));
    }
    return out;
  }
}
