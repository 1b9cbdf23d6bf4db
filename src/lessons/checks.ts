import { formatReply } from '../../emulator/redis-cli/format.js';
import { repr } from '../../emulator/resp/bytes.js';
import type { Reply } from '../../emulator/resp/reply.js';
import type { World } from '../../emulator/world/world.js';
import { aofVerdict, fileStat, infoField, peekKey, peekTtlSeconds, rdbVerdict, runningServer, typeOf, valueLength } from './observe.js';
import { parseServerRef, type Check } from './schema.js';

/**
 * Evaluating a lesson's checks against a world. Evaluation only reads
 * (observe.ts): it records no action, adds no trace line, moves no
 * counter, expires nothing and touches no key, so the checks can run
 * after every command and every frame without changing what they watch.
 *
 * A failing check says what it found, pointing at the difference:
 * "flag:last is still there on A", "A holds 3 keys; the lesson expects 5".
 * The lesson's own words (why-not) come first when it gives them.
 */
export interface CheckResult {
  readonly ok: boolean;
  /** For the learner: the lesson's label (or, failing, its why-not) when it gives one, else what was found. */
  readonly message: string;
  /** What was found, in the workbook's words (shown under the lesson's why-not). */
  readonly detail: string;
}

export interface CheckContext {
  readonly world: World;
  /** When the step began, in us since the world began (the trace's clock). */
  readonly stepStartUs: number;
  /** The last reply a redis-cli terminal received, by its lesson name; null if none yet. */
  lastReply(terminal: string): Reply | null;
  /** A code cell's last run, by its id; null if it has not run (or no code-cell engine is there). */
  cell?(id: string): CellRunView | null;
}

/** What a check sees of a code cell's last run. */
export interface CellRunView {
  readonly status: 'running' | 'done' | 'failed' | 'stopped';
  /** report(name, value) calls, the last value per name. */
  readonly reports: Readonly<Record<string, unknown>>;
  readonly error: { readonly message: string; readonly line: number | null } | null;
}

export function evaluateCheck(check: Check, ctx: CheckContext): CheckResult {
  const r = observe(check, ctx);
  const shown = r.ok ? check.label : (check['why-not'] ?? check.label);
  return { ok: r.ok, message: shown ?? r.detail, detail: r.detail };
}

interface Found {
  ok: boolean;
  detail: string;
}

const pass = (detail: string): Found => ({ ok: true, detail });
const fail = (detail: string): Found => ({ ok: false, detail });

function observe(c: Check, ctx: CheckContext): Found {
  switch (c.kind) {
    case 'key':
      return keyCheck(c, ctx);
    case 'info':
      return infoCheck(c, ctx);
    case 'config': {
      const { host, port } = parseServerRef(c.on);
      const p = runningServer(ctx.world, host, port);
      if (p === null) return fail(`no redis-server is running on ${host}:${port}`);
      const v = p.server.config.get(c.config);
      return v === c.equals ? pass(`${c.config} is ${quote(v)} on ${host}`) : fail(`${c.config} is ${quote(v)} on ${host}; the lesson expects ${quote(c.equals)}`);
    }
    case 'dbsize': {
      const { host, port } = parseServerRef(c.dbsize);
      const p = runningServer(ctx.world, host, port);
      if (p === null) return fail(`no redis-server is running on ${host}:${port}`);
      const db = p.server.dbs[c.db];
      let n = 0;
      if (db !== undefined) {
        if (db.expires.size === 0) n = db.dict.size;
        else for (const k of db.dict.keys()) if (peekKey(ctx.world, db, k) !== undefined) n++;
      }
      const where = `the server on ${host}${port === 6379 ? '' : `:${port}`}`;
      return numberFound(n, c, (x) => `${where} holds ${count(x, 'key')}`);
    }
    case 'server': {
      const { host, port } = parseServerRef(c.server);
      const h = ctx.world.hosts.get(host);
      const p = runningServer(ctx.world, host, port);
      const running = p !== null;
      const state = running ? `redis-server is running on ${host}:${port} (pid ${p.pid})` : h?.powered === false ? `${host} has no power` : `no redis-server is running on ${host}:${port}`;
      return running === c.running ? pass(state) : fail(state);
    }
    case 'host': {
      const h = ctx.world.hosts.get(c.host);
      const powered = h?.powered ?? false;
      const state = powered ? `${c.host} has power` : `${c.host} is powered off`;
      return powered === c.powered ? pass(state) : fail(state);
    }
    case 'file':
      return fileCheck(c, ctx);
    case 'trace':
      return traceCheck(c, ctx);
    case 'reply': {
      const r = ctx.lastReply(c.reply);
      if (r === null) return fail(`${c.reply} has received no reply yet`);
      const text = formatReply(r, 'tty').replace(/\n$/, '');
      const shown = text.length > 80 ? `${text.slice(0, 79)}…` : text;
      if (c.equals !== undefined && text !== c.equals) return fail(`${c.reply}'s last reply is ${shown}; the lesson expects ${c.equals}`);
      if (c.matches !== undefined && !new RegExp(c.matches).test(text)) return fail(`${c.reply}'s last reply is ${shown}`);
      return pass(`${c.reply}'s last reply is ${shown}`);
    }
    case 'cell':
      return cellCheck(c, ctx);
  }
}

type KeyCheck = Extract<Check, { kind: 'key' }>;

function keyCheck(c: KeyCheck, ctx: CheckContext): Found {
  const { host, port } = parseServerRef(c.on);
  const p = runningServer(ctx.world, host, port);
  if (p === null) return fail(`no redis-server is running on ${host}:${port}`);
  const db = p.server.dbs[c.db];
  const name = repr(c.key);
  const on = `on ${host}${port === 6379 ? '' : `:${port}`}${c.db === 0 ? '' : ` (db ${c.db})`}`;
  const v = db === undefined ? undefined : peekKey(ctx.world, db, c.key);
  const wantsExisting = c.exists ?? true;
  if (v === undefined) return wantsExisting ? fail(`${name} does not exist ${on}`) : pass(`${name} does not exist ${on}`);
  if (!wantsExisting) return fail(`${name} is still there ${on}`);
  const type = typeOf(v);
  if (c.type !== undefined && type !== c.type) return fail(`${name} is a ${type} ${on}; the lesson expects a ${c.type}`);
  if (c.equals !== undefined) {
    if (type !== 'string') return fail(`${name} is a ${type} ${on}, not a string`);
    const s = typeof v === 'string' ? v : (v as { s: string }).s;
    if (s !== c.equals) return fail(`${name} is ${repr(s)} ${on}; the lesson expects ${repr(c.equals)}`);
  }
  if (c.length !== undefined) {
    const n = valueLength(v);
    const r = numberFound(n, c.length, (x) => `${name} ${type === 'string' ? 'is' : 'holds'} ${count(x, type === 'string' ? 'byte' : type === 'hash' ? 'field' : type === 'list' ? 'item' : 'member')} ${type === 'string' ? 'long ' : ''}${on}`);
    if (!r.ok) return r;
  }
  if (c.ttl !== undefined) {
    const ttl = peekTtlSeconds(ctx.world, db!, c.key);
    const r = numberFound(ttl, c.ttl, (x) => (x === -1 ? `${name} has no expiry ${on}` : `${name} has ${count(x, 'second')} to live ${on}`));
    if (!r.ok) return r;
  }
  if (c.field !== undefined) {
    if (typeof v === 'string' || v.type !== 'hash') return fail(`${name} is a ${type} ${on}, not a hash`);
    const f = v.map.get(c.field.name);
    const fname = repr(c.field.name);
    const wantField = c.field.exists ?? true;
    if (f === undefined) return wantField ? fail(`${name} has no field ${fname} ${on}`) : pass(`${name} has no field ${fname}`);
    if (!wantField) return fail(`${name} still has the field ${fname} ${on}`);
    if (c.field.equals !== undefined && f !== c.field.equals) return fail(`field ${fname} of ${name} is ${repr(f)}; the lesson expects ${repr(c.field.equals)}`);
  }
  if (c.member !== undefined) {
    const m = c.member;
    const mname = repr(m.name);
    let has: boolean;
    let score: number | undefined;
    if (typeof v === 'string' || v.type === 'string' || v.type === 'hash' || v.type === 'stream') return fail(`${name} is a ${type} ${on}, which has no members`);
    if (v.type === 'set') has = v.set.has(m.name);
    else if (v.type === 'zset') {
      score = v.dict.get(m.name);
      has = score !== undefined;
    } else has = v.items.toArray().includes(m.name);
    if (has !== m.exists) return fail(has ? `${mname} is still in ${name} ${on}` : `${mname} is not in ${name} ${on}`);
    if (m.score !== undefined && score !== m.score) return fail(`${mname} has the score ${score} in ${name}; the lesson expects ${m.score}`);
  }
  return pass(describeKey(name, v, on));
}

function describeKey(name: string, v: NonNullable<ReturnType<typeof peekKey>>, on: string): string {
  const type = typeOf(v);
  if (type === 'string') {
    const s = typeof v === 'string' ? v : (v as { s: string }).s;
    return `${name} is ${repr(s.length > 60 ? s.slice(0, 60) : s)}${s.length > 60 ? '…' : ''} ${on}`;
  }
  return `${name} is a ${type} of ${valueLength(v)} ${on}`;
}

type InfoCheck = Extract<Check, { kind: 'info' }>;

function infoCheck(c: InfoCheck, ctx: CheckContext): Found {
  const { host, port } = parseServerRef(c.on);
  const p = runningServer(ctx.world, host, port);
  if (p === null) return fail(`no redis-server is running on ${host}:${port}`);
  const v = infoField(p, c.info);
  if (v === null) return fail(`INFO on ${host} has no field ${c.info}`);
  if (c.is !== undefined && v !== c.is) return fail(`${c.info} is ${v} on ${host}; the lesson expects ${c.is}`);
  if (c['same-as'] !== undefined) {
    const other = parseServerRef(c['same-as'].on);
    const otherField = c['same-as'].info ?? c.info;
    const q = runningServer(ctx.world, other.host, other.port);
    if (q === null) return fail(`no redis-server is running on ${other.host}:${other.port}`);
    const w = infoField(q, otherField);
    if (w !== v) return fail(`${c.info} is ${v} on ${host}, and ${otherField} is ${w ?? 'missing'} on ${other.host}`);
  }
  if (c.equals !== undefined || c.min !== undefined || c.max !== undefined) {
    const n = Number(v);
    if (!Number.isFinite(n)) return fail(`${c.info} is ${v} on ${host}, not a number`);
    return numberFound(n, c, (x) => `${c.info} is ${x} on ${host}`);
  }
  return pass(`${c.info} is ${v} on ${host}`);
}

type FileCheck = Extract<Check, { kind: 'file' }>;

function fileCheck(c: FileCheck, ctx: CheckContext): Found {
  const st = fileStat(ctx.world, c.on, c.file);
  const where = `${c.file} on ${c.on}`;
  const wantsFile = c.exists ?? true;
  if (st === null) return wantsFile ? fail(`${where} does not exist`) : pass(`${where} does not exist`);
  if (!wantsFile) return fail(`${where} exists (${count(st.size, 'byte')})`);
  if (c.size !== undefined) {
    const r = numberFound(st.size, c.size, (x) => `${where} is ${count(x, 'byte')}`);
    if (!r.ok) return r;
  }
  if (c['cached-bytes'] !== undefined) {
    const r = numberFound(st.dirtyBytes, c['cached-bytes'], (x) => `${where} has ${count(x, 'byte')} only in the page cache`);
    if (!r.ok) return r;
  }
  const durable = st.durableExists && st.dirtyBytes === 0 && st.durableSize === st.size;
  if (c.durable === true && !durable) {
    return fail(st.durableExists ? `${st.dirtyBytes} of the ${st.size} bytes of ${where} are not on the disk yet` : `${where} would not survive a power loss now: it is not on the disk yet`);
  }
  if (c.durable === false && durable) return fail(`every byte of ${where} is on the disk`);
  const verdictKind = c.valid ?? c.invalid;
  if (verdictKind !== undefined) {
    const v = verdictKind === 'rdb' ? rdbVerdict(ctx.world, c.on, c.file) : aofVerdict(ctx.world, c.on, c.file);
    const tool = `redis-check-${verdictKind}`;
    if (c.valid !== undefined && !v.ok) return fail(`${tool} finds ${where} damaged: ${v.said}`);
    if (c.invalid !== undefined && v.ok) return fail(`${tool} finds ${where} sound`);
    return pass(`${tool} finds ${where} ${v.ok ? 'sound' : `damaged: ${v.said}`}`);
  }
  return pass(`${where} is ${count(st.size, 'byte')}, ${durable ? 'all on the disk' : `${st.dirtyBytes} of them only in the page cache`}`);
}

type TraceCheck = Extract<Check, { kind: 'trace' }>;

function traceCheck(c: TraceCheck, ctx: CheckContext): Found {
  const entries = ctx.world.trace.entries;
  const re = c.text === undefined ? null : new RegExp(c.text);
  let n = 0;
  // Entries are in time order: walk back to the step's start only.
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.t < ctx.stepStartUs) break;
    if (e.kind !== c.trace || (c.source !== undefined && e.source !== c.source) || (re !== null && !re.test(e.text))) continue;
    n++;
  }
  const what = `${c.trace}${c.source !== undefined ? ` on ${c.source}` : ''}${c.text !== undefined ? ` matching /${c.text}/` : ''}`;
  return numberFound(n, c.count, (x) => `the trace shows ${x === 0 ? 'no' : x} ${what} event${x === 1 ? '' : 's'} since this step began`);
}

function cellCheck(c: Extract<Check, { kind: 'cell' }>, ctx: CheckContext): Found {
  const run = ctx.cell?.(c.cell) ?? null;
  if (run === null) return fail(`code cell ${c.cell} has not run yet`);
  if (run.status === 'running') return fail(`code cell ${c.cell} is still running`);
  if (run.status !== c.status) {
    const how = run.status === 'failed' ? `failed: ${run.error?.message ?? 'an error'}${run.error?.line != null ? ` (line ${run.error.line})` : ''}` : run.status === 'stopped' ? 'was stopped' : 'ran to its end';
    return fail(`code cell ${c.cell} ${how}`);
  }
  if (c.report === undefined) return pass(`code cell ${c.cell} ${run.status === 'done' ? 'ran to its end' : run.status}`);
  const name = c.path === undefined ? c.report : `${c.report}.${c.path}`;
  if (!Object.prototype.hasOwnProperty.call(run.reports, c.report)) return fail(`code cell ${c.cell} has not reported ${c.report}`);
  let v: unknown = run.reports[c.report];
  for (const part of c.path === undefined ? [] : c.path.split('.')) {
    v = v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, part) ? (v as Record<string, unknown>)[part] : undefined;
  }
  if (v === undefined) return fail(`code cell ${c.cell} reported no ${name}`);
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  if (c.is !== undefined && text !== c.is) return fail(`code cell ${c.cell} reported ${name} = ${text}; the lesson expects ${c.is}`);
  if (c.equals !== undefined || c.min !== undefined || c.max !== undefined) {
    if (typeof v !== 'number') return fail(`code cell ${c.cell} reported ${name} = ${text}, not a number`);
    return numberFound(v, c, (x) => `code cell ${c.cell} reported ${name} = ${Number.isInteger(x) ? x : x.toFixed(3)}`);
  }
  return pass(`code cell ${c.cell} reported ${name} = ${text.length > 80 ? text.slice(0, 79) + '…' : text}`);
}

interface NumberExpect {
  equals?: number | undefined;
  min?: number | undefined;
  max?: number | undefined;
}

/** Compares a number with equals/min/max and says how it differs. */
function numberFound(n: number, e: NumberExpect, say: (n: number) => string): Found {
  const found = say(n);
  if (e.equals !== undefined && n !== e.equals) return fail(`${found}; the lesson expects ${e.equals}`);
  if (e.min !== undefined && n < e.min) return fail(`${found}; the lesson expects at least ${e.min}`);
  if (e.max !== undefined && n > e.max) return fail(`${found}; the lesson expects at most ${e.max}`);
  return pass(found);
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function quote(s: string): string {
  return `"${s}"`;
}
