import { parseInt64 } from '../numbers/int64.js';
import { strtoll } from '../server/config-params.js';
import { opt } from './args.js';
import type { CommandSpec, FactTree } from '../server/command-table.js';

/**
 * Which arguments of a command are keys, for COMMAND GETKEYS and
 * GETKEYSANDFLAGS (src/db.c getKeysFromCommandWithSpecs): first the key
 * specs of the command's facts, then, where those are incomplete or their
 * flags depend on the arguments, the command's own key finder.
 */

/** Key flag names in the order Redis lists them. */
const KEY_FLAG_ORDER = ['RO', 'RW', 'OW', 'RM', 'access', 'update', 'insert', 'delete', 'not_key', 'incomplete', 'variable_flags'];

interface KeySpec {
  flags: string[];
  begin: { type: 'index'; index: number } | { type: 'keyword'; keyword: string; startfrom: number } | { type: 'unknown' };
  find:
    | { type: 'range'; lastkey: number; keystep: number; limit: number }
    | { type: 'keynum'; keynumidx: number; firstkey: number; keystep: number }
    | { type: 'unknown' };
}

export interface KeyRef {
  /** Index in the command's argv (the command name is 0). */
  pos: number;
  flags: readonly string[];
}

function mapOf(t: FactTree | undefined): Map<string, FactTree> {
  const m = new Map<string, FactTree>();
  if (t && typeof t === 'object' && 'm' in t) {
    for (let i = 0; i + 1 < t.m.length; i += 2) m.set(t.m[i] as string, t.m[i + 1]!);
  }
  return m;
}

function setNames(t: FactTree | undefined): string[] {
  if (t && typeof t === 'object' && 'set' in t) return t.set.map((x) => (typeof x === 'object' && x && 's' in x ? x.s : String(x)));
  return [];
}

const specCache = new WeakMap<CommandSpec, KeySpec[]>();

/** The key specs of a command, decoded from its facts. */
export function keySpecs(cmd: CommandSpec): KeySpec[] {
  let specs = specCache.get(cmd);
  if (specs) return specs;
  specs = [];
  const tree = cmd.facts.info[8];
  const list = tree && typeof tree === 'object' && 'set' in tree ? tree.set : [];
  for (const item of list) {
    const m = mapOf(item);
    const bs = mapOf(m.get('begin_search'));
    const bspec = mapOf(bs.get('spec'));
    const fk = mapOf(m.get('find_keys'));
    const fspec = mapOf(fk.get('spec'));
    const num = (s: Map<string, FactTree>, k: string) => s.get(k) as number;
    const begin: KeySpec['begin'] =
      bs.get('type') === 'index'
        ? { type: 'index', index: num(bspec, 'index') }
        : bs.get('type') === 'keyword'
          ? { type: 'keyword', keyword: bspec.get('keyword') as string, startfrom: num(bspec, 'startfrom') }
          : { type: 'unknown' };
    const find: KeySpec['find'] =
      fk.get('type') === 'range'
        ? { type: 'range', lastkey: num(fspec, 'lastkey'), keystep: num(fspec, 'keystep'), limit: num(fspec, 'limit') }
        : fk.get('type') === 'keynum'
          ? { type: 'keynum', keynumidx: num(fspec, 'keynumidx'), firstkey: num(fspec, 'firstkey'), keystep: num(fspec, 'keystep') }
          : { type: 'unknown' };
    specs.push({ flags: setNames(m.get('flags')), begin, find });
  }
  specCache.set(cmd, specs);
  return specs;
}

/** Redis's getKeysUsingKeySpecs; null when a spec is invalid or incomplete for these arguments. */
function keysFromSpecs(cmd: CommandSpec, argv: readonly string[]): KeyRef[] | null {
  const argc = argv.length;
  const keys: KeyRef[] = [];
  for (const spec of keySpecs(cmd)) {
    if (spec.flags.includes('not_key')) continue;
    let first = 0;
    if (spec.begin.type === 'index') {
      first = spec.begin.index;
    } else if (spec.begin.type === 'keyword') {
      const { keyword, startfrom } = spec.begin;
      const start = startfrom > 0 ? startfrom : argc + startfrom;
      const end = startfrom > 0 ? argc - 1 : 1;
      const lower = keyword.toLowerCase();
      for (let i = start; i !== end; i = start <= end ? i + 1 : i - 1) {
        if (i >= argc || i < 1) break;
        if (opt(argv[i]!) === lower) {
          first = i + 1;
          break;
        }
      }
      if (first === 0) continue;
    } else {
      return null;
    }
    let last: number;
    let step: number;
    const find = spec.find;
    if (find.type === 'range') {
      step = find.keystep;
      if (find.lastkey >= 0) last = first + find.lastkey;
      else if (find.limit === 0) last = argc + find.lastkey;
      else last = first + (Math.trunc((argc - first) / find.limit) + find.lastkey);
    } else if (find.type === 'keynum') {
      step = find.keystep;
      if (find.keynumidx >= argc) return null;
      const numkeys = parseInt64(argv[first + find.keynumidx] ?? '');
      if (numkeys === null || numkeys < 0) return null;
      first += find.firstkey;
      last = first + Number(BigInt.asIntN(32, BigInt(numkeys))) - 1;
    } else {
      return null;
    }
    if (last >= argc || last < first || first >= argc) return null;
    for (let i = first; i <= last; i += step) {
      if (i >= argc || i < first) continue;
      keys.push({ pos: i, flags: spec.flags });
    }
    if (spec.flags.includes('incomplete')) return null;
  }
  return keys;
}

const RO_ACCESS = ['RO', 'access'];
const NO_FLAGS: string[] = [];

/** atoi: leading space, a sign, digits, anything after ignored; wraps into a C int. */
function atoi(s: string): number {
  const m = /^\s*[+-]?\d+/.exec(s);
  return m ? Number(BigInt.asIntN(32, strtoll(m[0]).value)) : 0;
}

/** genericGetKeys: [storeKey] numkeys key... */
function numkeysKeys(argv: readonly string[], storeOfs: number, countOfs: number, firstOfs: number): KeyRef[] {
  const num = atoi(argv[countOfs]!);
  if (num < 1 || num > argv.length - firstOfs) return [];
  const keys: KeyRef[] = [];
  for (let i = 0; i < num; i++) keys.push({ pos: firstOfs + i, flags: NO_FLAGS });
  if (storeOfs) keys.push({ pos: storeOfs, flags: NO_FLAGS });
  return keys;
}

function sortKeys(argv: readonly string[]): KeyRef[] {
  const keys: KeyRef[] = [{ pos: 1, flags: RO_ACCESS }];
  let store: KeyRef | null = null;
  const skip: Record<string, number> = { limit: 2, get: 1, by: 1 };
  for (let i = 2; i < argv.length; i++) {
    const o = opt(argv[i]!);
    if (o in skip) i += skip[o]!;
    else if (o === 'store' && i + 1 < argv.length) store = { pos: i + 1, flags: ['OW', 'update'] };
  }
  if (store) keys.push(store);
  return keys;
}

function migrateKeys(argv: readonly string[]): KeyRef[] {
  let first = 3;
  let num = 1;
  const skip: Record<string, number> = { copy: 0, replace: 0, auth: 1, auth2: 2 };
  if (argv.length > 6) {
    for (let i = 6; i < argv.length; i++) {
      const o = opt(argv[i]!);
      if (o === 'keys') {
        if (argv[3]!.length > 0) {
          num = 0;
        } else {
          first = i + 1;
          num = argv.length - first;
        }
        break;
      }
      if (o in skip) i += skip[o]!;
    }
  }
  const keys: KeyRef[] = [];
  for (let i = 0; i < num; i++) keys.push({ pos: first + i, flags: ['RW', 'access', 'delete'] });
  return keys;
}

function georadiusKeys(argv: readonly string[]): KeyRef[] {
  let stored = -1;
  for (let i = 5; i < argv.length; i++) {
    const o = opt(argv[i]!);
    if ((o === 'store' || o === 'storedist') && i + 1 < argv.length) {
      stored = i + 1;
      i++;
    }
  }
  const keys: KeyRef[] = [{ pos: 1, flags: NO_FLAGS }];
  if (stored !== -1) keys.push({ pos: stored, flags: NO_FLAGS });
  return keys;
}

function xreadKeys(argv: readonly string[]): KeyRef[] {
  let streams = -1;
  for (let i = 1; i < argv.length; i++) {
    const o = opt(argv[i]!);
    if (o === 'block' || o === 'count') i++;
    else if (o === 'group') i += 2;
    else if (o === 'noack') continue;
    else if (o === 'streams') {
      streams = i;
      break;
    } else break;
  }
  const num = streams === -1 ? 0 : argv.length - streams - 1;
  if (streams === -1 || num === 0 || num % 2 !== 0) return [];
  const keys: KeyRef[] = [];
  for (let i = streams + 1; i < argv.length - num / 2; i++) keys.push({ pos: i, flags: NO_FLAGS });
  return keys;
}

function setKeys(argv: readonly string[]): KeyRef[] {
  for (let i = 3; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.length >= 3 && (a.length === 3 || a[3] === '\0') && a.slice(0, 3).toLowerCase() === 'get') {
      return [{ pos: 1, flags: ['RW', 'access', 'update'] }];
    }
  }
  return [{ pos: 1, flags: ['OW', 'update'] }];
}

function bitfieldKeys(argv: readonly string[]): KeyRef[] {
  let readonly = true;
  for (let i = 2; i < argv.length; i++) {
    const remaining = argv.length - i - 1;
    const o = opt(argv[i]!);
    if (o === 'get' && remaining >= 2) {
      i += 2;
    } else if ((o === 'set' || o === 'incrby') && remaining >= 3) {
      readonly = false;
      break;
    } else if (o === 'overflow' && remaining >= 1) {
      i += 1;
    } else {
      readonly = false;
      break;
    }
  }
  return [{ pos: 1, flags: readonly ? RO_ACCESS : ['RW', 'access', 'update'] }];
}

/** Commands with their own key finder (Redis's getkeys_proc). */
const KEY_FINDERS: Record<string, (argv: readonly string[]) => KeyRef[]> = {
  set: setKeys,
  bitfield: bitfieldKeys,
  sort: sortKeys,
  sort_ro: () => [{ pos: 1, flags: RO_ACCESS }],
  migrate: migrateKeys,
  georadius: georadiusKeys,
  georadiusbymember: georadiusKeys,
  xread: xreadKeys,
  xreadgroup: xreadKeys,
  eval: (a) => numkeysKeys(a, 0, 2, 3),
  evalsha: (a) => numkeysKeys(a, 0, 2, 3),
  eval_ro: (a) => numkeysKeys(a, 0, 2, 3),
  evalsha_ro: (a) => numkeysKeys(a, 0, 2, 3),
  fcall: (a) => numkeysKeys(a, 0, 2, 3),
  fcall_ro: (a) => numkeysKeys(a, 0, 2, 3),
  lmpop: (a) => numkeysKeys(a, 0, 1, 2),
  blmpop: (a) => numkeysKeys(a, 0, 2, 3),
  zmpop: (a) => numkeysKeys(a, 0, 1, 2),
  bzmpop: (a) => numkeysKeys(a, 0, 2, 3),
  sintercard: (a) => numkeysKeys(a, 0, 1, 2),
  zunion: (a) => numkeysKeys(a, 0, 1, 2),
  zinter: (a) => numkeysKeys(a, 0, 1, 2),
  zdiff: (a) => numkeysKeys(a, 0, 1, 2),
  zintercard: (a) => numkeysKeys(a, 0, 1, 2),
  zunionstore: (a) => numkeysKeys(a, 1, 2, 3),
  zinterstore: (a) => numkeysKeys(a, 1, 2, 3),
  zdiffstore: (a) => numkeysKeys(a, 1, 2, 3),
};

/** doesCommandHaveKeys: a key finder, or a key spec that names real keys. */
export function commandHasKeys(cmd: CommandSpec): boolean {
  return cmd.name in KEY_FINDERS || keySpecs(cmd).some((s) => !s.flags.includes('not_key'));
}

/** The keys of a full command line (argv[0] is the command name). */
export function commandKeys(cmd: CommandSpec, argv: readonly string[]): KeyRef[] {
  const specs = keySpecs(cmd);
  const hasKeySpec = specs.some((s) => !s.flags.includes('not_key'));
  const variableFlags = specs.some((s) => s.flags.includes('variable_flags'));
  if (hasKeySpec && !variableFlags) {
    const keys = keysFromSpecs(cmd, argv);
    if (keys !== null) return keys;
  }
  const finder = KEY_FINDERS[cmd.name];
  return finder ? finder(argv) : [];
}

/** Orders key flag names the way Redis prints them. */
export function orderedKeyFlags(flags: readonly string[]): string[] {
  return KEY_FLAG_ORDER.filter((f) => flags.includes(f));
}
