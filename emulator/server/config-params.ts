import { parseInt64 } from '../numbers/int64.js';
import { asciiLower } from '../resp/bytes.js';
import { cString, isCSpace } from '../numbers/c-string.js';

/**
 * The configuration parameters of Redis 7.0.15: every name CONFIG GET *
 * lists (with aliases), plus the hidden ones only an exact name reaches,
 * with their types, flags, bounds and defaults (see src/config.c). The
 * defaults are the values CONFIG GET shows on a fresh `redis-server` started
 * without a config file; dir, logfile, pidfile, port and bind depend on how
 * the server was started and come from the startup configuration.
 *
 * A value is kept as the canonical string CONFIG GET shows. Parsing a value
 * produces that string (or an error text), so "1gb" is stored as
 * "1073741824" and "YES" as "yes".
 */

/** Parameter flags (src/server.h *_CONFIG). */
export const CONF = {
  IMMUTABLE: 1 << 0,
  SENSITIVE: 1 << 1,
  DEBUG: 1 << 2,
  MULTI_ARG: 1 << 3,
  HIDDEN: 1 << 4,
  PROTECTED: 1 << 5,
  DENY_LOADING: 1 << 6,
  /** Every SET counts as a change (the value points at data that may have changed). */
  VOLATILE: 1 << 9,
} as const;

export type ParamKind = 'bool' | 'numeric' | 'enum' | 'string' | 'special';

/** A failed parse: the text after "CONFIG SET failed (possibly related to argument 'x') - ". */
export interface ConfigParseError {
  error: string;
}

export interface ConfigParam {
  readonly name: string;
  readonly alias?: string;
  readonly flags: number;
  readonly kind: ParamKind;
  /** The words an enum parameter takes ("always", "everysec", "no"), for the terminal's Tab completion. */
  readonly choices?: readonly string[];
  /** The value CONFIG GET shows on a fresh server. */
  readonly default: string;
  /**
   * Validates a value and returns its canonical form. Multi-argument
   * parameters (save, bind...) receive the value split on single spaces,
   * the others a one-element array. `current` is the value being replaced.
   */
  parse(args: string[], current: string): string | ConfigParseError;
  /** A numeric parameter that takes sizes ("100mb"); CONFIG REWRITE writes it in gb, mb or kb. */
  readonly memory?: boolean;
  /** The number an int, memory or bool parameter holds (bools are 1/0); NaN otherwise. */
  toNumber(value: string): number;
  /**
   * Checks that a changed value can take effect, after every parameter of
   * a CONFIG SET was parsed (Redis's apply functions). Returns an error to
   * undo the whole CONFIG SET. Parameters that share a check function are
   * checked once per CONFIG SET, as Redis runs each apply function once.
   */
  check?: ConfigCheck;
}

/** A check that may look at the other parameters' new values. */
export type ConfigCheck = (value: string, get: (name: string) => string) => string | null;

const INT_MIN = -2147483648n;
const INT_MAX = 2147483647n;
const UINT_MAX = 4294967295n;
const LONG_MAX = 9223372036854775807n;
const LLONG_MAX = LONG_MAX;
const ULLONG_MAX = 18446744073709551615n;
const SSIZE_MAX = LONG_MAX;
const TWO_64 = 1n << 64n;


/**
 * Redis's memtoull (src/util.c): digits with an optional unit b, k, kb, m,
 * mb, g, gb (any case). Overflowing digits saturate and the multiplication
 * wraps around 2^64, as the C code does. Returns null when invalid.
 */
export function memtoull(input: string): bigint | null {
  const s = cString(input);
  if (s.charCodeAt(0) === 45 /* - */) return null;
  let i = 0;
  while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++;
  const unit = asciiLower(s.slice(i));
  let mul: bigint;
  switch (unit) {
    case '':
    case 'b':
      mul = 1n;
      break;
    case 'k':
      mul = 1000n;
      break;
    case 'kb':
      mul = 1024n;
      break;
    case 'm':
      mul = 1000000n;
      break;
    case 'mb':
      mul = 1048576n;
      break;
    case 'g':
      mul = 1000000000n;
      break;
    case 'gb':
      mul = 1073741824n;
      break;
    default:
      return null;
  }
  if (i >= 128) return null;
  let v = i === 0 ? 0n : BigInt(s.slice(0, i));
  if (v > ULLONG_MAX) v = ULLONG_MAX;
  return (v * mul) % TWO_64;
}

/**
 * C's strtoll in base 10: leading white space, an optional sign, digits;
 * saturates on overflow. Returns the value and whether the whole string
 * was consumed (Redis checks `*endptr == '\0'`).
 */
export function strtoll(input: string): { value: bigint; complete: boolean } {
  const s = cString(input);
  let i = 0;
  while (i < s.length && isCSpace(s.charCodeAt(i))) i++;
  let neg = false;
  if (s[i] === '+' || s[i] === '-') {
    neg = s[i] === '-';
    i++;
  }
  const start = i;
  while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++;
  if (i === start) return { value: 0n, complete: s.length === 0 };
  let v = BigInt(s.slice(start, i));
  if (neg) v = -v;
  if (v > LLONG_MAX) v = LLONG_MAX;
  if (v < -LLONG_MAX - 1n) v = -LLONG_MAX - 1n;
  return { value: v, complete: i === s.length };
}

/** The two's complement int64 reading of a 64-bit pattern. */
function asSigned64(v: bigint): bigint {
  const m = ((v % TWO_64) + TWO_64) % TWO_64;
  return m > LLONG_MAX ? m - TWO_64 : m;
}

/** The unsigned reading of an int64. */
function asUnsigned64(v: bigint): bigint {
  return v < 0n ? v + TWO_64 : v;
}

/** Redis's yesnotoi. */
function yesNo(s: string): 'yes' | 'no' | null {
  const l = asciiLower(cString(s));
  return l === 'yes' || l === 'no' ? l : null;
}

// ---- boolean parameters ----

function bool(name: string, def: boolean, flags = 0, alias?: string, extra: Partial<ConfigParam> = {}): ConfigParam {
  return {
    name,
    alias,
    flags,
    kind: 'bool',
    default: def ? 'yes' : 'no',
    parse(args) {
      const v = yesNo(args[0]!);
      return v ?? { error: "argument must be 'yes' or 'no'" };
    },
    toNumber: (v) => (v === 'yes' ? 1 : 0),
    ...extra,
  };
}

// ---- numeric parameters ----

type CType = 'int' | 'uint' | 'long' | 'ulong' | 'longlong' | 'ulonglong' | 'sizet' | 'ssizet' | 'offt' | 'timet';
const NUM_MEMORY = 1;
const NUM_PERCENT = 2;
const NUM_OCTAL = 4;

/** The types Redis checks bounds for as unsigned numbers. */
const UNSIGNED_BOUNDS = new Set<CType>(['ulonglong', 'uint', 'sizet']);

interface NumericSpec {
  ctype: CType;
  lower: bigint;
  upper: bigint;
  def: bigint;
  numFlags?: number;
  flags?: number;
  alias?: string;
  /** Post-processing of an accepted value (hz is capped into 1..500). */
  adjust?: (v: bigint) => bigint;
  check?: ConfigParam['check'];
}

function formatNumeric(v: bigint, numFlags: number): string {
  if (numFlags & NUM_PERCENT && v < 0n) return `${-v}%`;
  if (numFlags & NUM_MEMORY) return asUnsigned64(v).toString();
  if (numFlags & NUM_OCTAL) return asUnsigned64(v).toString(8);
  return v.toString();
}

function parseNumericValue(value: string, numFlags: number): bigint | ConfigParseError {
  if (numFlags & NUM_MEMORY) {
    const m = memtoull(value);
    if (m !== null) return asSigned64(m);
  }
  if (numFlags & NUM_PERCENT && value.length > 1 && value.endsWith('%')) {
    const p = parseInt64(value.slice(0, -1));
    if (p !== null && BigInt(p) >= 0n) return -BigInt(p);
  }
  if (numFlags & NUM_OCTAL) {
    const s = cString(value);
    if (/^\s*[+-]?[0-7]*$/.test(s)) {
      const m = /^\s*([+-]?)([0-7]*)$/.exec(s)!;
      let v = m[2] ? BigInt('0o' + m[2]) : 0n;
      if (m[1] === '-') v = -v;
      if (v <= LLONG_MAX && v >= -LLONG_MAX - 1n) return v;
    }
  }
  if (numFlags === 0) {
    const n = parseInt64(value);
    if (n !== null) return BigInt(n);
  }
  if (numFlags & NUM_MEMORY && numFlags & NUM_PERCENT) return { error: 'argument must be a memory or percent value' };
  if (numFlags & NUM_MEMORY) return { error: 'argument must be a memory value' };
  if (numFlags & NUM_OCTAL) return { error: "argument couldn't be parsed as an octal number" };
  return { error: "argument couldn't be parsed into an integer" };
}

function boundsError(spec: NumericSpec, v: bigint): ConfigParseError | null {
  const numFlags = spec.numFlags ?? 0;
  if (UNSIGNED_BOUNDS.has(spec.ctype)) {
    const u = asUnsigned64(v);
    const lo = asUnsigned64(spec.lower);
    const hi = asUnsigned64(spec.upper);
    if (u > hi || u < lo) {
      const fmt = (x: bigint) => (numFlags & NUM_OCTAL ? x.toString(8) : x.toString());
      return { error: `argument must be between ${fmt(lo)} and ${fmt(hi)} inclusive` };
    }
    return null;
  }
  if (numFlags & NUM_PERCENT && v < 0n) {
    if (v < spec.lower) return { error: `percentage argument must be less or equal to ${-spec.lower}` };
    return null;
  }
  if (v > spec.upper || v < spec.lower) {
    return { error: `argument must be between ${spec.lower} and ${spec.upper} inclusive` };
  }
  return null;
}

function numeric(name: string, spec: NumericSpec): ConfigParam {
  const numFlags = spec.numFlags ?? 0;
  return {
    name,
    alias: spec.alias,
    flags: spec.flags ?? 0,
    kind: 'numeric',
    memory: (numFlags & NUM_MEMORY) !== 0,
    default: formatNumeric(spec.def, numFlags),
    parse(args) {
      const parsed = parseNumericValue(args[0]!, numFlags);
      if (typeof parsed !== 'bigint') return parsed;
      const err = boundsError(spec, parsed);
      if (err) return err;
      return formatNumeric(spec.adjust ? spec.adjust(parsed) : parsed, numFlags);
    },
    toNumber(v) {
      if (v.endsWith('%')) return -Number(v.slice(0, -1));
      return Number(v);
    },
    check: spec.check,
  };
}

const int = (lower: bigint, upper: bigint, def: number, more: Partial<NumericSpec> = {}): NumericSpec => ({
  ctype: 'int', lower, upper, def: BigInt(def), ...more,
});

// ---- enumerated parameters ----

type EnumTable = ReadonlyArray<readonly [string, number]>;

function enumName(table: EnumTable, value: number, bitflags: boolean): string {
  for (const [n, v] of table) if (v === value) return n;
  if (!bitflags) return 'unknown';
  let names = '';
  let unmatched = value;
  for (const [n, v] of table) {
    if (v !== 0 && (unmatched & v) === v) {
      names = names ? `${names} ${n}` : n;
      unmatched &= ~v;
    }
  }
  return names && unmatched === 0 ? names : 'unknown';
}

function enumeration(
  name: string,
  table: EnumTable,
  def: number,
  flags = 0,
  validate?: (v: number) => string | null,
): ConfigParam {
  const bitflags = (flags & CONF.MULTI_ARG) !== 0;
  const choices = table.map(([n]) => n).join(', ');
  return {
    name,
    flags,
    kind: 'enum',
    choices: table.map(([n]) => n),
    default: enumName(table, def, bitflags),
    parse(args) {
      let value = 0;
      let ok = args.length !== 0 && (bitflags || args.length === 1);
      for (const a of args) {
        if (!ok) break;
        const l = asciiLower(cString(a));
        let matched = false;
        for (const [n, v] of table) {
          if (n === l) {
            value |= v;
            matched = true;
          }
        }
        ok = matched;
      }
      if (!ok) return { error: `argument(s) must be one of the following: ${choices}` };
      const invalid = validate?.(value);
      if (invalid) return { error: invalid };
      return enumName(table, value, bitflags);
    },
    toNumber: () => NaN,
  };
}

const MAXMEMORY_POLICIES: EnumTable = [
  ['volatile-lru', 1], ['volatile-lfu', 2], ['volatile-random', 3], ['volatile-ttl', 4],
  ['allkeys-lru', 5], ['allkeys-lfu', 6], ['allkeys-random', 7], ['noeviction', 8],
];
const SYSLOG_FACILITIES: EnumTable = [
  ['user', 8], ['local0', 128], ['local1', 136], ['local2', 144], ['local3', 152],
  ['local4', 160], ['local5', 168], ['local6', 176], ['local7', 184],
];
const LOG_LEVELS: EnumTable = [['debug', 0], ['verbose', 1], ['notice', 2], ['warning', 3]];
const SUPERVISED: EnumTable = [['upstart', 1], ['systemd', 2], ['auto', 3], ['no', 0]];
const FSYNC: EnumTable = [['everysec', 2], ['always', 1], ['no', 0]];
const SHUTDOWN_ON_SIG: EnumTable = [['default', 0], ['save', 1], ['nosave', 2], ['now', 4], ['force', 8]];
const DISKLESS_LOAD: EnumTable = [['disabled', 0], ['on-empty-db', 1], ['swapdb', 2]];
const TLS_AUTH_CLIENTS: EnumTable = [['no', 0], ['yes', 1], ['optional', 2]];
const OOM_SCORE_ADJ: EnumTable = [['no', 0], ['yes', 1], ['relative', 1], ['absolute', 2]];
const ACL_PUBSUB_DEFAULT: EnumTable = [['allchannels', 1], ['resetchannels', 0]];
const SANITIZE_DUMP: EnumTable = [['no', 0], ['yes', 1], ['clients', 2]];
const PROTECTED_ACTION: EnumTable = [['no', 0], ['yes', 1], ['local', 2]];
const ENDPOINT_TYPE: EnumTable = [['ip', 0], ['hostname', 1], ['unknown-endpoint', 2]];
const PROPAGATION_ERROR: EnumTable = [['ignore', 0], ['panic', 1], ['panic-on-replicas', 2]];

function shutdownFlagsValid(v: number): string | null {
  return v & 1 && v & 2 ? "shutdown options SAVE and NOSAVE can't be used simultaneously" : null;
}

// ---- string parameters ----

/**
 * A string parameter. `sds` ones (masterauth, requirepass) keep every byte;
 * the others are C strings and stop at a NUL.
 */
function str(
  name: string,
  def: string,
  flags = 0,
  more: { alias?: string; sds?: boolean; validate?: (v: string) => string | null; check?: ConfigParam['check'] } = {},
): ConfigParam {
  return {
    name,
    alias: more.alias,
    flags,
    kind: 'string',
    default: def,
    parse(args) {
      const v = more.sds ? args[0]! : cString(args[0]!);
      const invalid = more.validate?.(v);
      if (invalid) return { error: invalid };
      return v;
    },
    toNumber: () => NaN,
    check: more.check,
  };
}

function isBaseName(v: string): boolean {
  return !v.includes('/') && !v.includes('\\');
}

function validHostname(v: string): string | null {
  if (v.length >= 256) return 'Hostnames must be less than 256 characters';
  // Redis's loop re-reads the first character once and then walks on, so
  // every character is checked.
  if (!/^[A-Za-z0-9.-]*$/.test(v)) return 'Hostnames may only contain alphanumeric characters, hyphens or dots';
  return null;
}

/** The variables a proc-title-template may use, expanded as a fresh standalone server would. */
function expandProcTitle(template: string): string | null {
  let out = '';
  let p = 0;
  while (p < template.length) {
    const open = template.indexOf('{', p);
    if (open < 0) {
      out += template.slice(p);
      break;
    }
    out += template.slice(p, open);
    if (open + 1 >= template.length) return null;
    if (template[open + 1] === '{') {
      out += '{';
      p = open + 2;
      continue;
    }
    const close = template.indexOf('}', open + 1);
    if (close < 0) return null;
    const name = template.slice(open + 1, close);
    switch (name) {
      case 'title':
      case 'server-mode':
      case 'unixsocket':
        break;
      case 'listen-addr':
        out += '*:6379';
        break;
      case 'config-file':
        out += '-';
        break;
      case 'port':
        out += '6379';
        break;
      case 'tls-port':
        out += '0';
        break;
      default:
        return null;
    }
    p = close + 1;
  }
  return out.replace(/^ +| +$/g, '');
}

// ---- special parameters ----

function special(
  name: string,
  def: string,
  flags: number,
  parse: (args: string[], current: string) => string | ConfigParseError,
  more: { alias?: string; check?: ConfigParam['check'] } = {},
): ConfigParam {
  return { name, alias: more.alias, flags, kind: 'special', default: def, parse, toNumber: () => NaN, check: more.check };
}

function parseSave(args: string[]): string | ConfigParseError {
  const invalid = { error: 'Invalid save parameters' };
  if (args.length % 2 !== 0) return invalid;
  const parts: string[] = [];
  for (let j = 0; j < args.length; j++) {
    const { value, complete } = strtoll(args[j]!);
    if (!complete || (j % 2 === 0 && value < 1n) || (j % 2 === 1 && value < 0n)) return invalid;
    // The number of changes is stored in a C int.
    parts.push(j % 2 === 0 ? value.toString() : BigInt.asIntN(32, value).toString());
  }
  return parts.join(' ');
}

const CLIENT_CLASSES = ['normal', 'slave', 'pubsub'] as const;

function parseClientOutputBufferLimit(args: string[], current: string): string | ConfigParseError {
    if (args.length % 4 !== 0) return { error: 'Wrong number of arguments in buffer limit configuration.' };
    const limits = new Map<string, string>();
    const cur = current.split(' ');
    for (let i = 0; i < cur.length; i += 4) limits.set(cur[i]!, cur.slice(i + 1, i + 4).join(' '));
    const updates = new Map<string, string>();
    for (let j = 0; j < args.length; j += 4) {
      const klass = clientClass(args[j]!);
      if (klass === null) return { error: 'Invalid client class specified in buffer limit configuration.' };
      const hard = memtoull(args[j + 1]!);
      const soft = memtoull(args[j + 2]!);
      const secs = strtoll(args[j + 3]!);
      const seconds = BigInt.asIntN(32, secs.value);
      if (hard === null || soft === null || seconds < 0n || !secs.complete) {
        return { error: 'Error in hard, soft or soft_seconds setting in buffer limit configuration.' };
      }
      updates.set(klass, `${hard} ${soft} ${seconds}`);
    }
    for (const [k, v] of updates) limits.set(k, v);
    return CLIENT_CLASSES.map((k) => `${k} ${limits.get(k)}`).join(' ');
}

/** getClientTypeByName, minus "master", which buffer limits refuse. */
function clientClass(name: string): (typeof CLIENT_CLASSES)[number] | null {
  switch (asciiLower(cString(name))) {
    case 'normal':
      return 'normal';
    case 'slave':
    case 'replica':
      return 'slave';
    case 'pubsub':
      return 'pubsub';
    default:
      return null;
  }
}

function parseOomScoreAdjValues(args: string[]): string | ConfigParseError {
  if (args.length !== 3) return { error: 'wrong number of arguments' };
  const out: string[] = [];
  for (const a of args) {
    const { value, complete } = strtoll(a);
    if (!complete || value < -2000n || value > 2000n) {
      return { error: 'Invalid oom-score-adj-values, elements must be between -2000 and 2000.' };
    }
    out.push(value.toString());
  }
  return out.join(' ');
}

/** Keyspace event classes (src/notify.c), in the order Redis prints them. */
const NOTIFY_CLASSES: Record<string, number> = {
  g: 1 << 2, $: 1 << 3, l: 1 << 4, s: 1 << 5, h: 1 << 6, z: 1 << 7, x: 1 << 8, e: 1 << 9,
  t: 1 << 10, d: 1 << 13, n: 1 << 14, K: 1 << 0, E: 1 << 1, m: 1 << 11,
};
const NOTIFY_ALL = (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 13);

/** Parses notify-keyspace-events classes into flags; -1 when a character is unknown. */
export function keyspaceEventFlags(classes: string): number {
  let flags = 0;
  for (const ch of cString(classes)) {
    if (ch === 'A') flags |= NOTIFY_ALL;
    else if (ch in NOTIFY_CLASSES) flags |= NOTIFY_CLASSES[ch]!;
    else return -1;
  }
  return flags;
}

function keyspaceEventString(flags: number): string {
  let out = '';
  if ((flags & NOTIFY_ALL) === NOTIFY_ALL) out += 'A';
  else for (const ch of 'g$lshzxetdn') if (flags & NOTIFY_CLASSES[ch]!) out += ch;
  for (const ch of 'KEm') if (flags & NOTIFY_CLASSES[ch]!) out += ch;
  return out;
}

function parseNotifyKeyspaceEvents(args: string[]): string | ConfigParseError {
  if (args.length !== 1) return { error: 'wrong number of arguments' };
  const flags = keyspaceEventFlags(args[0]!);
  if (flags === -1) return { error: "Invalid event class character. Use 'Ag$lshzxeKEtmdn'." };
  return keyspaceEventString(flags);
}

function parseBind(args: string[]): string | ConfigParseError {
  if (args.length > 16) return { error: 'Too many bind addresses specified.' };
  return args.map(cString).join(' ');
}

/**
 * The emulated host owns the loopback and wildcard addresses only; binding
 * anything else fails the way a real server fails on a foreign address.
 * A leading '-' marks an address as optional.
 */
function checkBind(value: string): string | null {
  for (const addr of value === '' ? [] : value.split(' ')) {
    if (addr.startsWith('-')) continue;
    if (!['*', '0.0.0.0', '::', '127.0.0.1', '::1', 'localhost'].includes(addr)) return 'Failed to bind to specified addresses.';
  }
  return null;
}

function parseReplicaOf(args: string[]): string | ConfigParseError {
  if (args.length !== 2) return { error: 'wrong number of arguments' };
  if (asciiLower(cString(args[0]!)) === 'no' && asciiLower(cString(args[1]!)) === 'one') return '';
  const port = strtoll(args[1]!);
  if (port.value < 0n || port.value > 65535n || !port.complete) return { error: 'Invalid master port' };
  return `${cString(args[0]!)} ${port.value}`;
}

/** "%f" with trailing zeros (and a trailing dot) removed, as Redis's trimDoubleString. */
function trimmedFixed(d: number): string {
  const s = d.toFixed(6);
  return s.replace(/\.?0+$/, '');
}

function parsePercentiles(args: string[]): string | ConfigParseError {
  const out: string[] = [];
  for (const a of args) {
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(a)) {
      return { error: 'Invalid latency-tracking-info-percentiles parameters' };
    }
    const p = Number(a);
    if (p > 100 || p < 0) return { error: 'latency-tracking-info-percentiles parameters should sit between [0.0,100.0]' };
    out.push(trimmedFixed(p));
  }
  return out.join(' ');
}

function parseDir(args: string[]): string | ConfigParseError {
  if (args.length !== 1) return { error: 'wrong number of arguments' };
  return cString(args[0]!);
}

const tlsNotConfigured = 'Unable to update TLS configuration. Check server logs.';

/** No certificates are configured, so TLS cannot be switched on. */
const tlsCfg: ConfigCheck = (_v, get) =>
  get('tls-port') !== '0' || get('tls-replication') === 'yes' || get('tls-cluster') === 'yes' ? tlsNotConfigured : null;
const tlsPort: ConfigCheck = () => tlsNotConfigured;

/**
 * Every parameter, in Redis's table order. `port`, `dir`, `bind` and
 * `logfile` are overridden by the startup configuration the way
 * command-line options override a real server's defaults.
 */
export const CONFIG_PARAMS: readonly ConfigParam[] = [
  // Booleans.
  bool('rdbchecksum', true, CONF.IMMUTABLE),
  bool('daemonize', false, CONF.IMMUTABLE),
  bool('io-threads-do-reads', false, CONF.DEBUG | CONF.IMMUTABLE),
  bool('always-show-logo', false, CONF.IMMUTABLE),
  bool('protected-mode', true),
  bool('rdbcompression', true),
  bool('rdb-del-sync-files', false),
  bool('activerehashing', true),
  bool('stop-writes-on-bgsave-error', true),
  bool('set-proc-title', true, CONF.IMMUTABLE),
  bool('dynamic-hz', true),
  bool('lazyfree-lazy-eviction', false, CONF.DEBUG),
  bool('lazyfree-lazy-expire', false, CONF.DEBUG),
  bool('lazyfree-lazy-server-del', false, CONF.DEBUG),
  bool('lazyfree-lazy-user-del', false, CONF.DEBUG),
  bool('lazyfree-lazy-user-flush', false, CONF.DEBUG),
  bool('repl-disable-tcp-nodelay', false),
  bool('repl-diskless-sync', true, CONF.DEBUG),
  bool('aof-rewrite-incremental-fsync', true),
  bool('no-appendfsync-on-rewrite', false),
  bool('cluster-require-full-coverage', true),
  bool('rdb-save-incremental-fsync', true),
  bool('aof-load-truncated', true),
  bool('aof-use-rdb-preamble', true),
  bool('aof-timestamp-enabled', false),
  bool('cluster-replica-no-failover', false, 0, 'cluster-slave-no-failover'),
  bool('replica-lazy-flush', false, 0, 'slave-lazy-flush'),
  bool('replica-serve-stale-data', true, 0, 'slave-serve-stale-data'),
  bool('replica-read-only', true, CONF.DEBUG, 'slave-read-only'),
  bool('replica-ignore-maxmemory', true, 0, 'slave-ignore-maxmemory'),
  bool('jemalloc-bg-thread', true),
  // The reference build links the system jemalloc, which lacks the hooks
  // active defragmentation needs.
  bool('activedefrag', false, CONF.DEBUG, undefined, {
    parse(args) {
      const v = yesNo(args[0]!);
      if (v === null) return { error: "argument must be 'yes' or 'no'" };
      if (v === 'yes') {
        return {
          error:
            'Active defragmentation cannot be enabled: it requires a Redis server compiled with a modified Jemalloc like the one shipped by default with the Redis source distribution',
        };
      }
      return v;
    },
  }),
  bool('syslog-enabled', false, CONF.IMMUTABLE),
  bool('cluster-enabled', false, CONF.IMMUTABLE),
  bool('appendonly', false, CONF.DENY_LOADING),
  bool('cluster-allow-reads-when-down', false),
  bool('cluster-allow-pubsubshard-when-down', true),
  bool('crash-log-enabled', true),
  bool('crash-memcheck-enabled', true),
  bool('use-exit-on-panic', false, CONF.HIDDEN),
  bool('disable-thp', true, CONF.IMMUTABLE),
  bool('cluster-allow-replica-migration', true),
  bool('replica-announced', true),
  bool('latency-tracking', true),
  bool('aof-disable-auto-gc', false),
  bool('replica-ignore-disk-write-errors', false),

  // Strings.
  str('aclfile', '', CONF.IMMUTABLE),
  str('unixsocket', '', CONF.IMMUTABLE),
  str('pidfile', '', CONF.IMMUTABLE),
  str('replica-announce-ip', '', 0, { alias: 'slave-announce-ip' }),
  str('masteruser', '', CONF.SENSITIVE),
  str('cluster-announce-ip', '', 0),
  str('cluster-config-file', 'nodes.conf', CONF.IMMUTABLE),
  str('cluster-announce-hostname', '', 0, { validate: validHostname }),
  str('syslog-ident', 'redis', CONF.IMMUTABLE),
  str('dbfilename', 'dump.rdb', CONF.PROTECTED, {
    validate: (v) => (isBaseName(v) ? null : "dbfilename can't be a path, just a filename"),
  }),
  str('appendfilename', 'appendonly.aof', CONF.IMMUTABLE, {
    validate: (v) =>
      v === '' ? "appendfilename can't be empty" : isBaseName(v) ? null : "appendfilename can't be a path, just a filename",
  }),
  str('appenddirname', 'appendonlydir', CONF.IMMUTABLE, {
    validate: (v) =>
      v === '' ? "appenddirname can't be empty" : isBaseName(v) ? null : "appenddirname can't be a path, just a dirname",
  }),
  str('server_cpulist', '', CONF.IMMUTABLE),
  str('bio_cpulist', '', CONF.IMMUTABLE),
  str('aof_rewrite_cpulist', '', CONF.IMMUTABLE),
  str('bgsave_cpulist', '', CONF.IMMUTABLE),
  str('ignore-warnings', '', 0),
  str('proc-title-template', '{title} {listen-addr} {server-mode}', 0, {
    validate: (v) => {
      const expanded = expandProcTitle(v);
      return expanded === null || expanded === '' ? 'template format is invalid or contains unknown variables' : null;
    },
  }),
  str('bind-source-addr', '', 0),
  str('logfile', '', CONF.IMMUTABLE),
  str('masterauth', '', CONF.SENSITIVE, { sds: true }),
  str('requirepass', '', CONF.SENSITIVE, { sds: true }),

  // Enumerations.
  enumeration('supervised', SUPERVISED, 0, CONF.IMMUTABLE),
  enumeration('syslog-facility', SYSLOG_FACILITIES, 128, CONF.IMMUTABLE),
  enumeration('repl-diskless-load', DISKLESS_LOAD, 0, CONF.DEBUG | CONF.DENY_LOADING),
  enumeration('loglevel', LOG_LEVELS, 2),
  enumeration('maxmemory-policy', MAXMEMORY_POLICIES, 8),
  enumeration('appendfsync', FSYNC, 2),
  enumeration('oom-score-adj', OOM_SCORE_ADJ, 0),
  enumeration('acl-pubsub-default', ACL_PUBSUB_DEFAULT, 0),
  enumeration('sanitize-dump-payload', SANITIZE_DUMP, 0, CONF.DEBUG),
  enumeration('enable-protected-configs', PROTECTED_ACTION, 0, CONF.IMMUTABLE),
  enumeration('enable-debug-command', PROTECTED_ACTION, 0, CONF.IMMUTABLE),
  enumeration('enable-module-command', PROTECTED_ACTION, 0, CONF.IMMUTABLE),
  enumeration('cluster-preferred-endpoint-type', ENDPOINT_TYPE, 0),
  enumeration('propagation-error-behavior', PROPAGATION_ERROR, 0),
  enumeration('shutdown-on-sigint', SHUTDOWN_ON_SIG, 0, CONF.MULTI_ARG, shutdownFlagsValid),
  enumeration('shutdown-on-sigterm', SHUTDOWN_ON_SIG, 0, CONF.MULTI_ARG, shutdownFlagsValid),

  // Integers.
  numeric('databases', int(1n, INT_MAX, 16, { flags: CONF.IMMUTABLE })),
  numeric('port', int(0n, 65535n, 6379)),
  numeric('io-threads', int(1n, 128n, 1, { flags: CONF.DEBUG | CONF.IMMUTABLE })),
  numeric('auto-aof-rewrite-percentage', int(0n, INT_MAX, 100)),
  numeric('cluster-replica-validity-factor', int(0n, INT_MAX, 10, { alias: 'cluster-slave-validity-factor' })),
  numeric('list-max-listpack-size', int(INT_MIN, INT_MAX, -2, { alias: 'list-max-ziplist-size' })),
  numeric('tcp-keepalive', int(0n, INT_MAX, 300)),
  numeric('cluster-migration-barrier', int(0n, INT_MAX, 1)),
  numeric('active-defrag-cycle-min', int(1n, 99n, 1)),
  numeric('active-defrag-cycle-max', int(1n, 99n, 25)),
  numeric('active-defrag-threshold-lower', int(0n, 1000n, 10)),
  numeric('active-defrag-threshold-upper', int(0n, 1000n, 100)),
  numeric('lfu-log-factor', int(0n, INT_MAX, 10)),
  numeric('lfu-decay-time', int(0n, INT_MAX, 1)),
  numeric('replica-priority', int(0n, INT_MAX, 100, { alias: 'slave-priority' })),
  numeric('repl-diskless-sync-delay', int(0n, INT_MAX, 5)),
  numeric('maxmemory-samples', int(1n, INT_MAX, 5)),
  numeric('maxmemory-eviction-tenacity', int(0n, 100n, 10)),
  numeric('timeout', int(0n, INT_MAX, 0)),
  numeric('replica-announce-port', int(0n, 65535n, 0, { alias: 'slave-announce-port' })),
  numeric('tcp-backlog', int(0n, INT_MAX, 511, { flags: CONF.IMMUTABLE })),
  numeric('cluster-port', int(0n, 65535n, 0, { flags: CONF.IMMUTABLE })),
  numeric('cluster-announce-bus-port', int(0n, 65535n, 0)),
  numeric('cluster-announce-port', int(0n, 65535n, 0)),
  numeric('cluster-announce-tls-port', int(0n, 65535n, 0)),
  numeric('repl-timeout', int(1n, INT_MAX, 60)),
  numeric('repl-ping-replica-period', int(1n, INT_MAX, 10, { alias: 'repl-ping-slave-period' })),
  numeric('list-compress-depth', int(0n, INT_MAX, 0, { flags: CONF.DEBUG })),
  numeric('rdb-key-save-delay', int(INT_MIN, INT_MAX, 0, { flags: CONF.HIDDEN })),
  numeric('key-load-delay', int(INT_MIN, INT_MAX, 0, { flags: CONF.HIDDEN })),
  numeric('active-expire-effort', int(1n, 10n, 1)),
  // hz is a hint: values outside 1..500 are accepted and capped.
  numeric('hz', int(0n, INT_MAX, 10, { adjust: (v) => (v < 1n ? 1n : v > 500n ? 500n : v) })),
  numeric('min-replicas-to-write', int(0n, INT_MAX, 0, { alias: 'min-slaves-to-write' })),
  numeric('min-replicas-max-lag', int(0n, INT_MAX, 10, { alias: 'min-slaves-max-lag' })),
  numeric('watchdog-period', int(0n, INT_MAX, 0, { flags: CONF.HIDDEN })),
  numeric('shutdown-timeout', int(0n, INT_MAX, 10)),
  numeric('repl-diskless-sync-max-replicas', int(0n, INT_MAX, 0)),
  numeric('maxclients', { ctype: 'uint', lower: 1n, upper: UINT_MAX, def: 10000n }),
  numeric('unixsocketperm', { ctype: 'uint', lower: 0n, upper: 0o777n, def: 0n, numFlags: NUM_OCTAL, flags: CONF.IMMUTABLE }),
  numeric('socket-mark-id', { ctype: 'uint', lower: 0n, upper: UINT_MAX, def: 0n, flags: CONF.IMMUTABLE }),
  numeric('active-defrag-max-scan-fields', { ctype: 'ulong', lower: 1n, upper: LONG_MAX, def: 1000n }),
  numeric('slowlog-max-len', { ctype: 'ulong', lower: 0n, upper: LONG_MAX, def: 128n }),
  numeric('acllog-max-len', { ctype: 'ulong', lower: 0n, upper: LONG_MAX, def: 128n }),
  numeric('busy-reply-threshold', { ctype: 'longlong', lower: 0n, upper: LONG_MAX, def: 5000n, alias: 'lua-time-limit' }),
  numeric('cluster-node-timeout', { ctype: 'longlong', lower: 0n, upper: LLONG_MAX, def: 15000n }),
  numeric('slowlog-log-slower-than', { ctype: 'longlong', lower: -1n, upper: LLONG_MAX, def: 10000n }),
  numeric('latency-monitor-threshold', { ctype: 'longlong', lower: 0n, upper: LLONG_MAX, def: 0n }),
  numeric('proto-max-bulk-len', {
    ctype: 'longlong', lower: 1048576n, upper: LONG_MAX, def: 536870912n, numFlags: NUM_MEMORY, flags: CONF.DEBUG,
  }),
  numeric('stream-node-max-entries', { ctype: 'longlong', lower: 0n, upper: LLONG_MAX, def: 100n }),
  numeric('repl-backlog-size', { ctype: 'longlong', lower: 1n, upper: LLONG_MAX, def: 1048576n, numFlags: NUM_MEMORY }),
  numeric('maxmemory', { ctype: 'ulonglong', lower: 0n, upper: ULLONG_MAX, def: 0n, numFlags: NUM_MEMORY }),
  numeric('cluster-link-sendbuf-limit', { ctype: 'ulonglong', lower: 0n, upper: ULLONG_MAX, def: 0n, numFlags: NUM_MEMORY }),
  numeric('hash-max-listpack-entries', { ctype: 'sizet', lower: 0n, upper: LONG_MAX, def: 512n, alias: 'hash-max-ziplist-entries' }),
  numeric('set-max-intset-entries', { ctype: 'sizet', lower: 0n, upper: LONG_MAX, def: 512n }),
  numeric('zset-max-listpack-entries', { ctype: 'sizet', lower: 0n, upper: LONG_MAX, def: 128n, alias: 'zset-max-ziplist-entries' }),
  numeric('active-defrag-ignore-bytes', { ctype: 'sizet', lower: 1n, upper: LLONG_MAX, def: 104857600n, numFlags: NUM_MEMORY }),
  numeric('hash-max-listpack-value', {
    ctype: 'sizet', lower: 0n, upper: LONG_MAX, def: 64n, numFlags: NUM_MEMORY, alias: 'hash-max-ziplist-value',
  }),
  numeric('stream-node-max-bytes', { ctype: 'sizet', lower: 0n, upper: LONG_MAX, def: 4096n, numFlags: NUM_MEMORY }),
  numeric('zset-max-listpack-value', {
    ctype: 'sizet', lower: 0n, upper: LONG_MAX, def: 64n, numFlags: NUM_MEMORY, alias: 'zset-max-ziplist-value',
  }),
  numeric('hll-sparse-max-bytes', { ctype: 'sizet', lower: 0n, upper: LONG_MAX, def: 3000n, numFlags: NUM_MEMORY }),
  numeric('tracking-table-max-keys', { ctype: 'sizet', lower: 0n, upper: LONG_MAX, def: 1000000n }),
  numeric('client-query-buffer-limit', {
    ctype: 'sizet', lower: 1048576n, upper: LONG_MAX, def: 1073741824n, numFlags: NUM_MEMORY, flags: CONF.DEBUG,
  }),
  numeric('maxmemory-clients', { ctype: 'ssizet', lower: -100n, upper: SSIZE_MAX, def: 0n, numFlags: NUM_MEMORY | NUM_PERCENT }),
  numeric('repl-backlog-ttl', { ctype: 'timet', lower: 0n, upper: LONG_MAX, def: 3600n }),
  numeric('auto-aof-rewrite-min-size', { ctype: 'offt', lower: 0n, upper: LLONG_MAX, def: 67108864n, numFlags: NUM_MEMORY }),
  numeric('loading-process-events-interval-bytes', { ctype: 'offt', lower: 1024n, upper: INT_MAX, def: 2097152n, flags: CONF.HIDDEN }),

  // TLS (the reference build has TLS support, but no certificates are configured).
  numeric('tls-port', int(0n, 65535n, 0, { check: tlsPort })),
  numeric('tls-session-cache-size', int(0n, INT_MAX, 20480, { check: tlsCfg })),
  numeric('tls-session-cache-timeout', int(0n, INT_MAX, 300, { check: tlsCfg })),
  bool('tls-cluster', false, 0, undefined, { check: tlsCfg }),
  bool('tls-replication', false, 0, undefined, { check: tlsCfg }),
  enumeration('tls-auth-clients', TLS_AUTH_CLIENTS, 1),
  bool('tls-prefer-server-ciphers', false, 0, undefined, { check: tlsCfg }),
  bool('tls-session-caching', true, 0, undefined, { check: tlsCfg }),
  str('tls-cert-file', '', CONF.VOLATILE, { check: tlsCfg }),
  str('tls-key-file', '', CONF.VOLATILE, { check: tlsCfg }),
  str('tls-key-file-pass', '', 0, { check: tlsCfg }),
  str('tls-client-cert-file', '', CONF.VOLATILE, { check: tlsCfg }),
  str('tls-client-key-file', '', CONF.VOLATILE, { check: tlsCfg }),
  str('tls-client-key-file-pass', '', 0, { check: tlsCfg }),
  str('tls-dh-params-file', '', CONF.VOLATILE, { check: tlsCfg }),
  str('tls-ca-cert-file', '', CONF.VOLATILE, { check: tlsCfg }),
  str('tls-ca-cert-dir', '', CONF.VOLATILE, { check: tlsCfg }),
  str('tls-protocols', '', 0, { check: tlsCfg }),
  str('tls-ciphers', '', 0, { check: tlsCfg }),
  str('tls-ciphersuites', '', 0, { check: tlsCfg }),

  // Special parameters with their own syntax.
  special('dir', '/', CONF.PROTECTED | CONF.DENY_LOADING, parseDir),
  special('save', '3600 1 300 100 60 10000', CONF.MULTI_ARG, parseSave),
  special(
    'client-output-buffer-limit',
    'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60',
    CONF.MULTI_ARG,
    parseClientOutputBufferLimit,
  ),
  special('oom-score-adj-values', '0 200 800', CONF.MULTI_ARG, parseOomScoreAdjValues),
  special('notify-keyspace-events', '', 0, parseNotifyKeyspaceEvents),
  special('bind', '* -::*', CONF.MULTI_ARG, parseBind, { check: checkBind }),
  special('replicaof', '', CONF.IMMUTABLE | CONF.MULTI_ARG, parseReplicaOf, { alias: 'slaveof' }),
  special('latency-tracking-info-percentiles', '50 99 99.9', CONF.MULTI_ARG, parsePercentiles),
];

/** Splits a value the way Redis splits multi-argument parameters: on every single space. */
export function splitConfigArgs(p: ConfigParam, value: string): string[] {
  if (!(p.flags & CONF.MULTI_ARG)) return [value];
  return value.length === 0 ? [] : value.split(' ');
}
