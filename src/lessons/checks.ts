import { formatReply } from '../../emulator/redis-cli/index.js';
import { repr } from '../../emulator/index.js';
import type { RedisProcess } from '../../emulator/process/index.js';
import type { World } from '../../emulator/world/world.js';
import type { AckLedger } from '../../emulator/world/ack-ledger.js';
import { primariesNow } from './ledger-code.js';
import { checkLabel, count, momentNotYet, momentWhen, sentence, serverName } from './check-words.js';
import { happeningWords } from './happenings.js';
import type { TimedReply } from './host.js';
import { aofVerdict, fileStat, infoField, peekKey, peekTtlSeconds, rdbVerdict, runningServer, typeOf, valueFingerprint, valueLength } from './observe.js';
import { parseServerRef, serverKey, type Check, type Moment } from './schema.js';
import type { MomentRecord, SeenAtMoment } from './step-watch.js';
import { checkHost, scanTrace, traceMatcher } from './trace-match.js';

/**
 * Evaluating a lesson's checks against a world. Evaluation only reads
 * (observe.ts): it records no action, adds no trace line, moves no
 * counter, expires nothing and touches no key, so the checks can run
 * after every command and every frame without changing what they watch.
 *
 * Every result carries a label, what the check asks for, the same
 * whether it passes or not (the lesson's own, or one said from the check:
 * check-words.ts); and what the workbook finds now, a sentence about the
 * world ("article:92617:votes is "531" on A"). A failing check shows the
 * lesson's why-not first when it gives one.
 */
export interface CheckResult {
  readonly ok: boolean;
  /** What the check asks for, in the lesson's words or said from the check. */
  readonly label: string;
  /** The lesson's own words for a failing check, if it gives them. */
  readonly whyNot: string | null;
  /** What the workbook finds now, in a sentence about the world. */
  readonly detail: string;
  /** One line for a transcript: the label when it passes, else the why-not, else what was found. */
  readonly message: string;
}

export interface CheckContext {
  readonly world: World;
  /** When the step began, in us since the world began (the trace's clock). */
  readonly stepStartUs: number;
  /** The last reply a redis-cli terminal received, by its lesson name, with its time; null if none yet. */
  lastReply(terminal: string): TimedReply | null;
  /** A code cell's last run, by its id; null if it has not run (or no code-cell engine is there). */
  cell?(id: string): CellRunView | null;
  /**
   * What this step has seen so far (step-watch.ts): the times each
   * time-relative check matched, and the moments servers died or forked.
   * Without it, time-relative checks scan the world's trace, and checks
   * that look back to a moment find none.
   */
  readonly watch?: {
    hits(index: number): readonly number[];
    moment(m: Moment, server: string): MomentRecord | null;
  };
  /** The world's acknowledged-writes ledger (ledger-code.ts); null while its code loads. */
  ledger?(): LedgerView | null;
}

/** What a ledger check reads of the ledger. */
export type LedgerView = Pick<AckLedger, 'verdict'>;

/** What a check sees of a code cell's last run. */
export interface CellRunView {
  readonly status: 'running' | 'done' | 'failed' | 'stopped';
  /** report(name, value) calls, the last value per name. */
  readonly reports: Readonly<Record<string, unknown>>;
  readonly error: { readonly message: string; readonly line: number | null } | null;
}

/** Evaluates check number `index` of its step (moments and counts are kept by index). */
export function evaluateCheck(check: Check, ctx: CheckContext, index = 0): CheckResult {
  const r = notYetAfter(check, ctx, index) ?? lookBack(check, ctx, index) ?? observe(check, ctx, index, null);
  const label = check.label ?? checkLabel(check);
  const whyNot = r.ok ? null : (check['why-not'] ?? null);
  return { ok: r.ok, label, whyNot, detail: r.detail, message: r.ok ? label : (whyNot ?? sentence(r.detail)) };
}

/**
 * A check read with `proc` as its server although it is dying or forking
 * (the step watch calls this at a moment): its verdict, its words, and
 * for a key its value, to compare with later.
 */
export function observeAtMoment(check: Check, ctx: CheckContext, proc: RedisProcess): SeenAtMoment {
  if (check.kind === 'key' && (check.kept !== undefined || check.lost !== undefined)) {
    const db = proc.server.dbs[check.db];
    const v = db === undefined ? undefined : peekKey(ctx.world, db, check.key);
    return { ok: true, detail: v === undefined ? 'did not exist' : `was ${describeValue(v)}`, value: v === undefined ? null : valueFingerprint(v) };
  }
  const r = observe(check, ctx, 0, proc);
  return { ok: r.ok, detail: r.detail, value: null };
}

interface Found {
  ok: boolean;
  detail: string;
}

const pass = (detail: string): Found => ({ ok: true, detail });
const fail = (detail: string): Found => ({ ok: false, detail });

/** A check to judge only after something has happened in the step, while it has not. */
function notYetAfter(c: Check, ctx: CheckContext, index: number): Found | null {
  if (!('after' in c) || c.after === undefined || hitsOf(c, ctx, index).length > 0) return null;
  return fail(happeningWords(c.after).notYet(checkHost(c)));
}

/** Checks that look back to a moment of the step: `at`, and a key's `kept` or `lost`. Null for the others. */
function lookBack(c: Check, ctx: CheckContext, index: number): Found | null {
  const at = 'at' in c ? c.at : undefined;
  const keep = c.kind === 'key' ? (c.kept ?? c.lost) : undefined;
  const m = at ?? keep;
  if (m === undefined) return null;
  const { host, server } = whereOf(c);
  const record = findMoment(ctx, m, server, host);
  const seen = record?.seen[index];
  if (record === null || seen === undefined) return fail(momentNotYet(m, host));
  if (c.kind === 'key' && c.written === true && hitsOf(c, ctx, index).length === 0) return fail(`no command has written ${repr(c.key)} on ${serverName(c.on)} in this step`);
  const when = momentWhen(m, host);
  if (at !== undefined) return { ok: seen.ok, detail: `${seen.detail}, ${when}` };
  // kept or lost: the key's value then, against its value now.
  const k = c as Extract<Check, { kind: 'key' }>;
  const { port } = parseServerRef(k.on);
  const p = serverOf(ctx, host, port, null);
  if (p === null) return fail(notRunning(ctx.world, host, port));
  const db = p.server.dbs[k.db];
  const v = db === undefined ? undefined : peekKey(ctx.world, db, k.key);
  const now = v === undefined ? null : valueFingerprint(v);
  const name = repr(k.key);
  const nowText = v === undefined ? 'does not exist' : `is ${describeValue(v)}`;
  const same = now === seen.value;
  if (k.kept !== undefined) {
    return same ? pass(`${name} ${nowText} on ${serverName(k.on)}, as it ${seen.detail} ${when}`) : fail(`${name} ${nowText} on ${serverName(k.on)}, but it ${seen.detail} ${when}`);
  }
  return same
    ? fail(`${name} ${nowText} on ${serverName(k.on)}, as it ${seen.detail} ${when}: nothing was lost`)
    : pass(`${name} ${seen.detail} ${when}, and ${nowText} now`);
}

function findMoment(ctx: CheckContext, m: Moment, server: string | null, host: string): MomentRecord | null {
  if (ctx.watch === undefined) return null;
  if (server !== null) return ctx.watch.moment(m, server);
  // A file or a host: any server of that host.
  for (const port of [6379, ...Array.from({ length: 16 }, (_, i) => 6380 + i)]) {
    const r = ctx.watch.moment(m, `${host}:${port}`);
    if (r !== null) return r;
  }
  return null;
}

function whereOf(c: Check): { host: string; server: string | null } {
  switch (c.kind) {
    case 'key':
    case 'info':
    case 'config':
      return { host: parseServerRef(c.on).host, server: serverKey(c.on) };
    case 'dbsize':
      return { host: parseServerRef(c.dbsize).host, server: serverKey(c.dbsize) };
    case 'server':
      return { host: parseServerRef(c.server).host, server: serverKey(c.server) };
    case 'file':
      return { host: c.on, server: null };
    case 'host':
      return { host: c.host, server: null };
    default:
      return { host: '', server: null };
  }
}

/** The server a check reads: the dying one at a moment, else the one running there. */
function serverOf(ctx: CheckContext, host: string, port: number, proc: RedisProcess | null): RedisProcess | null {
  if (proc !== null && proc.host.name === host && proc.port === port) return proc;
  return runningServer(ctx.world, host, port);
}

/** Why a server cannot be read, and what brings it back, for the learner. */
function notRunning(world: World, host: string, port: number): string {
  const h = world.hosts.get(host);
  const where = port === 6379 ? host : `${host}:${port}`;
  if (h !== undefined && !h.powered) return `${host} has no power, so no redis-server runs there (switch it on with sim power-on ${host} in a shell, then start the server)`;
  const conf = port === 6379 ? '/etc/redis/redis.conf' : `/etc/redis/redis-${port}.conf`;
  return `the server on ${where} is not running (start it with redis-server ${conf} in a shell on ${host})`;
}

function observe(c: Check, ctx: CheckContext, index: number, proc: RedisProcess | null): Found {
  switch (c.kind) {
    case 'key':
      return keyCheck(c, ctx, index, proc);
    case 'info':
      return infoCheck(c, ctx, proc);
    case 'config': {
      const { host, port } = parseServerRef(c.on);
      const p = serverOf(ctx, host, port, proc);
      if (p === null) return fail(notRunning(ctx.world, host, port));
      const v = p.server.config.get(c.config);
      const where = serverName(c.on);
      return v === c.equals ? pass(`${c.config} is ${quote(v)} on ${where}`) : fail(`${c.config} is ${quote(v)} on ${where}, not ${quote(c.equals)}`);
    }
    case 'dbsize': {
      const { host, port } = parseServerRef(c.dbsize);
      const p = serverOf(ctx, host, port, proc);
      if (p === null) return fail(notRunning(ctx.world, host, port));
      const db = p.server.dbs[c.db];
      let n = 0;
      if (db !== undefined) {
        if (db.expires.size === 0) n = db.dict.size;
        else for (const k of db.dict.keys()) if (peekKey(ctx.world, db, k) !== undefined) n++;
      }
      return numberFound(n, c, (x) => `the server on ${serverName(c.dbsize)} holds ${count(x, 'key')}`);
    }
    case 'server': {
      const { host, port } = parseServerRef(c.server);
      const p = serverOf(ctx, host, port, proc);
      const running = p !== null && (p !== proc || proc.alive);
      const state = running ? `redis-server is running on ${serverName(c.server)} (pid ${p.pid})` : notRunning(ctx.world, host, port);
      return running === c.running ? pass(state) : fail(state);
    }
    case 'host': {
      const h = ctx.world.hosts.get(c.host);
      const powered = h?.powered ?? false;
      const state = powered ? `${c.host} has power` : `${c.host} is switched off`;
      return powered === c.powered ? pass(state) : fail(state);
    }
    case 'file':
      return fileCheck(c, ctx);
    case 'reply': {
      const r = ctx.lastReply(c.reply);
      if (r === null || r.t <= ctx.stepStartUs) return fail(`the ${c.reply} terminal has received no reply in this step`);
      const text = formatReply(r.reply, 'tty').replace(/\n$/, '');
      const oneLine = text.replace(/\n/g, ' ');
      const shown = oneLine.length > 80 ? `${oneLine.slice(0, 79)}…` : oneLine;
      const said = `the last reply in the ${c.reply} terminal is ${shown}`;
      if (c.equals !== undefined && text !== c.equals) return fail(`${said}, not ${c.equals}`);
      if (c.matches !== undefined && !new RegExp(c.matches).test(text)) return fail(said);
      return pass(said);
    }
    case 'cell':
      return cellCheck(c, ctx);
    case 'ledger':
      return ledgerCheck(c, ctx);
    case 'happened':
    case 'ran':
    case 'command':
    case 'trace':
      return countCheck(c, ctx, index);
  }
}

/** Something that happened during the step, counted. */
function countCheck(c: Extract<Check, { kind: 'happened' | 'ran' | 'command' | 'trace' }>, ctx: CheckContext, index: number): Found {
  const n = hitsOf(c, ctx, index).length;
  const e = c.count;
  const enough = (e.equals === undefined || n === e.equals) && (e.min === undefined || n >= e.min) && (e.max === undefined || n <= e.max);
  let said: string;
  switch (c.kind) {
    case 'happened': {
      const host = parseServerRef(c.on).host;
      const words = happeningWords(c.happened);
      said = n === 0 ? words.notYet(host) : `${words.done(host)}${n === 1 ? '' : ` (${count(n, words.noun)} in this step)`}`;
      break;
    }
    case 'ran':
      said = n === 0 ? `${c.ran}${c.args !== undefined ? ` ${c.args}` : ''} has not run on ${c.on} in this step` : `${c.ran} ran on ${c.on} ${timesText(n)} in this step`;
      break;
    case 'command':
      said = n === 0 ? `${c.command} has not run on ${serverName(c.on)} in this step` : `${c.command} ran on ${serverName(c.on)} ${timesText(n)} in this step`;
      break;
    case 'trace':
      said = n === 0 ? 'it has not happened yet in this step' : `it happened ${timesText(n)} in this step`;
      break;
  }
  if (enough) return pass(said);
  if (n === 0) return fail(said);
  if (e.min !== undefined && n < e.min) return fail(`${said}; this step asks for ${timesText(e.min)}`);
  return fail(`${said}; this step asks for ${e.equals !== undefined ? timesText(e.equals) : `at most ${timesText(e.max!)}`}`);
}

function hitsOf(c: Check, ctx: CheckContext, index: number): readonly number[] {
  if (ctx.watch !== undefined) return ctx.watch.hits(index);
  const match = traceMatcher(c);
  return match === null ? [] : scanTrace(ctx.world.trace.entries, match, ctx.stepStartUs);
}

function timesText(n: number): string {
  return n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`;
}

type KeyCheck = Extract<Check, { kind: 'key' }>;

/** The key holds the same string on the other server as here (`v`, read `on` this one). */
function sameKeyAs(c: KeyCheck, otherRef: string, ctx: CheckContext, proc: RedisProcess | null, v: NonNullable<ReturnType<typeof peekKey>>, on: string): Found {
  const name = repr(c.key);
  const other = parseServerRef(otherRef);
  const q = serverOf(ctx, other.host, other.port, proc);
  if (q === null) return fail(notRunning(ctx.world, other.host, other.port));
  const db = q.server.dbs[c.db];
  const w = db === undefined ? undefined : peekKey(ctx.world, db, c.key);
  const there = `on ${serverName(otherRef)}`;
  const text = (x: typeof v) => (typeof x === 'string' ? x : x.type === 'string' ? (x as { s: string }).s : null);
  const mine = text(v);
  if (mine === null) return fail(`${name} is ${typeWords(typeOf(v))} ${on}, not a string`);
  if (w === undefined) return fail(`${name} is ${repr(mine)} ${on}, and does not exist ${there}`);
  const theirs = text(w);
  if (theirs !== mine) return fail(`${name} is ${repr(mine)} ${on}, and ${theirs === null ? typeWords(typeOf(w)) : repr(theirs)} ${there}`);
  return pass(`${name} is ${repr(mine)} ${on} and ${there}`);
}

function keyCheck(c: KeyCheck, ctx: CheckContext, index: number, proc: RedisProcess | null): Found {
  const { host, port } = parseServerRef(c.on);
  const name = repr(c.key);
  if (c.written === true && (proc === null ? hitsOf(c, ctx, index).length === 0 : false)) {
    return fail(`no command has written ${name} on ${serverName(c.on)} in this step`);
  }
  const p = serverOf(ctx, host, port, proc);
  if (p === null) return fail(notRunning(ctx.world, host, port));
  const db = p.server.dbs[c.db];
  const on = `on ${serverName(c.on)}${c.db === 0 ? '' : ` (db ${c.db})`}`;
  const v = db === undefined ? undefined : peekKey(ctx.world, db, c.key);
  const wantsExisting = c.exists ?? true;
  if (v === undefined) return wantsExisting ? fail(`${name} does not exist ${on}`) : pass(`${name} does not exist ${on}`);
  if (!wantsExisting) return fail(`${name} is still there ${on}`);
  const type = typeOf(v);
  if (c.type !== undefined && type !== c.type) return fail(`${name} is ${typeWords(type)} ${on}, not ${typeWords(c.type)}`);
  if (c.equals !== undefined || c.number !== undefined) {
    if (type !== 'string') return fail(`${name} is ${typeWords(type)} ${on}, not a string`);
    const s = typeof v === 'string' ? v : (v as { s: string }).s;
    if (c.equals !== undefined && s !== c.equals) return fail(`${name} is ${repr(s)} ${on}, not ${repr(c.equals)}`);
    if (c.number !== undefined) {
      const n = Number(s);
      if (s.trim() === '' || !Number.isFinite(n)) return fail(`${name} is ${repr(s)} ${on}, not a number`);
      const r = numberFound(n, c.number, (x) => `${name} is ${x} ${on}`);
      if (!r.ok) return r;
    }
  }
  if (c['same-as'] !== undefined) {
    const r = sameKeyAs(c, c['same-as'].on, ctx, proc, v, on);
    if (!r.ok) return r;
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
    if (typeof v === 'string' || v.type !== 'hash') return fail(`${name} is ${typeWords(type)} ${on}, not a hash`);
    const f = v.map.get(c.field.name);
    const fname = repr(c.field.name);
    const wantField = c.field.exists ?? true;
    if (f === undefined) return wantField ? fail(`${name} has no field ${fname} ${on}`) : pass(`${name} has no field ${fname}`);
    if (!wantField) return fail(`${name} still has the field ${fname} ${on}`);
    if (c.field.equals !== undefined && f !== c.field.equals) return fail(`the field ${fname} of ${name} is ${repr(f)}, not ${repr(c.field.equals)}`);
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
    if (m.score !== undefined && score !== m.score) return fail(`${mname} has the score ${score} in ${name}, not ${m.score}`);
  }
  return pass(`${name} is ${describeValue(v)} ${on}`);
}

/** '"530"', 'a hash of 3 fields'. */
function describeValue(v: NonNullable<ReturnType<typeof peekKey>>): string {
  const type = typeOf(v);
  if (type === 'string') {
    const s = typeof v === 'string' ? v : (v as { s: string }).s;
    return `${repr(s.length > 60 ? s.slice(0, 60) : s)}${s.length > 60 ? '…' : ''}`;
  }
  const n = valueLength(v);
  return `${typeWords(type)} of ${count(n, type === 'hash' ? 'field' : type === 'list' ? 'item' : 'member')}`;
}

/** "a sorted set": a type as the learner reads it. */
function typeWords(type: string): string {
  return type === 'zset' ? 'a sorted set' : `a ${type}`;
}

type InfoCheck = Extract<Check, { kind: 'info' }>;

function infoCheck(c: InfoCheck, ctx: CheckContext, proc: RedisProcess | null): Found {
  const { host, port } = parseServerRef(c.on);
  const p = serverOf(ctx, host, port, proc);
  if (p === null) return fail(notRunning(ctx.world, host, port));
  const where = serverName(c.on);
  const v = infoField(p, c.info);
  if (v === null) return fail(`INFO on ${where} shows no ${c.info}`);
  if (c.is !== undefined && v !== c.is) return fail(`${c.info} is ${v} on ${where}, not ${c.is}`);
  if (c['same-as'] !== undefined) {
    const other = parseServerRef(c['same-as'].on);
    const otherField = c['same-as'].info ?? c.info;
    const q = serverOf(ctx, other.host, other.port, proc);
    if (q === null) return fail(notRunning(ctx.world, other.host, other.port));
    const w = infoField(q, otherField);
    if (w !== v) return fail(`${c.info} is ${v} on ${where}, and ${otherField} is ${w ?? 'missing'} on ${serverName(c['same-as'].on)}`);
  }
  if (c.equals !== undefined || c.min !== undefined || c.max !== undefined) {
    const n = Number(v);
    if (!Number.isFinite(n)) return fail(`${c.info} is ${v} on ${where}, not a number`);
    return numberFound(n, c, (x) => `${c.info} is ${x} on ${where}`);
  }
  return pass(`${c.info} is ${v} on ${where}`);
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
    if (c.valid !== undefined && !v.ok) return fail(`${tool} finds ${where} damaged (${v.said})`);
    if (c.invalid !== undefined && v.ok) return fail(`${tool} finds ${where} sound`);
    return pass(`${tool} finds ${where} ${v.ok ? 'sound' : `damaged (${v.said})`}`);
  }
  return pass(`${where} is ${count(st.size, 'byte')}, ${durable ? 'all on the disk' : `${st.dirtyBytes} of them only in the page cache`}`);
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
  if (c.is !== undefined && text !== c.is) return fail(`code cell ${c.cell} reported ${name} = ${text}, not ${c.is}`);
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
  if (e.equals !== undefined && n !== e.equals) return fail(`${found}, not ${e.equals}`);
  if (e.min !== undefined && n < e.min) return fail(`${found}, less than ${e.min}`);
  if (e.max !== undefined && n > e.max) return fail(`${found}, more than ${e.max}`);
  return pass(found);
}

function quote(s: string): string {
  return `"${s}"`;
}

/**
 * The acknowledged writes of this step against the data of the server
 * that holds the truth: the one named, or the one primary running now.
 */
function ledgerCheck(c: Extract<Check, { kind: 'ledger' }>, ctx: CheckContext): Found {
  const ledger = ctx.ledger?.() ?? null;
  if (ledger === null) return fail('the workbook is still opening its ledger of acknowledged writes');
  let where: { host: string; port: number };
  if (c.on !== undefined) {
    where = parseServerRef(c.on);
    if (serverOf(ctx, where.host, where.port, null) === null) return fail(notRunning(ctx.world, where.host, where.port));
  } else {
    const primaries = primariesNow(ctx.world);
    if (primaries.length === 0) return fail('no redis-server runs as a primary now, so there is no data to check the acknowledged writes against');
    if (primaries.length > 1) return fail(`${primaries.map((p) => serverName(`${p.host.name}:${p.port}`)).join(' and ')} are all primaries now: the writes are checked once one primary is left`);
    where = { host: primaries[0]!.host.name, port: primaries[0]!.port };
  }
  const v = ledger.verdict(where.host, where.port, { sinceUs: ctx.stepStartUs });
  const name = serverName(`${where.host}:${where.port}`);
  if (v.judged === 0) return fail('no client has been told a write succeeded in this step yet');
  const lost = c.cause === undefined ? v.lost : v.lost.filter((l) => l.cause === c.cause);
  if (c.ledger === 'kept') {
    return v.lost.length === 0 ? pass(`all ${count(v.judged, 'write')} acknowledged in this step are in the data on ${name}`) : fail(`against the data on ${name}: ${v.summary.join(' ')}`);
  }
  if (lost.length !== 0) return pass(`against the data on ${name}: ${v.summary.join(' ')}`);
  if (v.lost.length !== 0) return fail(`against the data on ${name}: ${v.summary.join(' ')} None of them because of ${c.cause === 'partition' ? 'a partition' : 'a crash'}`);
  return fail(`every one of the ${count(v.judged, 'write')} acknowledged in this step is in the data on ${name}: nothing was lost`);
}
