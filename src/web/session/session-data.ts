import { z } from 'zod';
import { HOST_PROFILES, LINK_PROFILES } from '../../../emulator/sim/index.js';
import { visibleControls } from '../terminal/sanitize.js';

export { SESSION_FORMAT, SESSION_VERSION, type BranchData, type CheckpointData, type ClockState, type Moment, type SessionFile } from './session-format.js';
import { SESSION_FORMAT, SESSION_VERSION, type Moment, type SessionFile } from './session-format.js';

// ---- validation ----

const int = z.number().int();
const name = z.string().min(1).max(200);
const byteString = z.string().max(1 << 16);
/** The longest history line a saved terminal keeps: recalling a pasted line of megabytes after a reload is worth less than its room. */
const HISTORY_LINE_MAX_CHARS = 1 << 16;

const choiceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('redis-cli'), from: name, to: name, port: int.min(0).max(65535) }),
  z.object({ kind: z.literal('shell'), host: name }),
]);

const cliStateSchema = z.object({
  output: z.enum(['tty', 'raw']),
  resp3: z.boolean(),
  dbnum: int,
  inputDbnum: int,
  inMulti: z.boolean(),
  preMultiDbnum: int,
  connected: z.boolean(),
  streaming: z.boolean(),
});

const redisCliStateSchema = z.object({ session: name.nullable(), cli: cliStateSchema });

const specSchema = z.object({
  from: name,
  to: name,
  shownHost: name,
  port: z.union([int.min(0).max(65535), byteString]),
  db: int.optional(),
  resp3: z.boolean().optional(),
  raw: z.boolean().nullable().optional(),
});

const programSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('redis-cli'), cli: redisCliStateSchema }),
  z.object({
    kind: z.literal('shell'),
    shell: z.object({ shell: name, nested: z.object({ spec: specSchema, state: redisCliStateSchema }).nullable() }),
  }),
]);

const terminalSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/),
  title: z.string().min(1).max(200),
  choice: choiceSchema,
  screen: z.string().max(8 << 20),
  ended: z.boolean(),
  // A line longer than a history keeps (a pasted value) is left out, not taken for damage.
  history: z
    .array(z.string())
    .max(10_000)
    .transform((lines) => lines.filter((line) => line.length <= HISTORY_LINE_MAX_CHARS)),
  program: programSchema.nullable(),
  worldIds: z.array(name).max(100_000),
});

/**
 * Bounds of what a page can rebuild: events run (a long afternoon of a
 * busy cluster is tens of millions) and virtual time since the world
 * began (a year, even at the fastest speed, is more than a learner spends).
 */
const MAX_EVENTS = 1_000_000_000;
const MAX_VIRTUAL_US = 366 * 24 * 3600 * 1e6;
/** When worlds may begin: from the Unix epoch to 2100, us. */
const startUsSchema = int.min(0).max(4_102_444_800_000_000);

const momentSchema = z.object({
  actionCount: int.min(0),
  eventsRun: int.min(0).max(MAX_EVENTS),
  nowUs: int,
  terminals: z.array(terminalSchema).max(200),
  active: z.string().nullable(),
  clock: z.object({ speed: z.number().min(0.1).max(100), paused: z.boolean() }),
});

/** A machine's own numbers, as a session may carry them: each in a range the simulation can run. */
const hostProfileSchema = z.object({
  name: name,
  cpuSpeed: z.number().min(0.001).max(1000),
  forkMsPerGb: z.number().min(0).max(100_000),
  disk: z.enum(['hdd', 'ssd', 'nvme']),
  memoryBytes: int.min(1 << 20).max(2 ** 50),
});

const linkProfileSchema = z.object({
  name: name,
  rttUs: z.number().min(0).max(60_000_000),
  bandwidthBps: z.number().min(1000).max(1e12),
  jitterUs: z.number().min(0).max(60_000_000),
  perPacketUs: z.number().min(0).max(60_000_000),
  mssBytes: int.min(64).max(1 << 20),
});

const profileName = <T extends Record<string, unknown>>(profiles: T) => z.enum(Object.keys(profiles) as [string, ...string[]]);

/** The actions whose numbers shape the world are checked field by field; the others by the world as it replays them. */
const OTHER_ACTIONS = ['spawn', 'startRedis', 'partition', 'heal', 'powerOff', 'powerOn', 'signal', 'openSession', 'send', 'closeSession', 'openClient', 'clientSend', 'closeClient', 'program'] as const;
const actionBodySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('addHost'), name, profile: z.union([profileName(HOST_PROFILES), hostProfileSchema], { error: 'not a machine profile the workbook knows, nor one whose numbers it can run' }) }),
  z.object({ kind: z.literal('link'), a: name, b: name, profile: z.union([profileName(LINK_PROFILES), linkProfileSchema], { error: 'not a link profile the workbook knows, nor one whose numbers it can run' }) }),
  ...OTHER_ACTIONS.map((kind) => z.looseObject({ kind: z.literal(kind) })),
]);

const actionSchema = z.object({
  n: int.min(0).max(MAX_EVENTS),
  t: int,
  action: actionBodySchema,
});

const idSchema = z.string().regex(/^[A-Za-z0-9_-]{1,40}$/);

const sessionSchema = z.object({
  format: z.literal(SESSION_FORMAT),
  version: z.literal(SESSION_VERSION),
  savedAt: z.string().max(100),
  activeBranch: idSchema,
  branches: z
    .array(
      z.object({
        id: idSchema,
        name: z.string().min(1).max(200),
        seed: int.min(0).max(2 ** 32),
        startUs: startUsSchema,
        parent: idSchema.nullable(),
        forkedFrom: z.string().max(200).nullable(),
        head: momentSchema,
      }),
    )
    .min(1)
    .max(1000),
  logs: z.record(idSchema, z.array(actionSchema)),
  checkpoints: z
    .array(z.object({ id: idSchema, branch: idSchema, label: z.string().min(1).max(200), auto: z.boolean(), moment: momentSchema }))
    .max(100_000),
  state: z.record(z.string(), z.unknown()),
  nextId: int.min(1),
});

/** What became of reading a session: the session, or why it cannot be used, in words for the learner. */
export type SessionParse = { ok: true; session: SessionFile } | { ok: false; message: string };

/**
 * Checks data that claims to be a session (an imported file, what
 * IndexedDB gave back) and makes what it shows safe. Nothing is trusted:
 * the shape, the references between its parts and the counts are checked,
 * and the terminal screens keep only the escape sequences the terminal
 * itself writes.
 */
export function checkSession(data: unknown): SessionParse {
  if (typeof data !== 'object' || data === null || (data as { format?: unknown }).format !== SESSION_FORMAT) {
    return { ok: false, message: 'This is not a Redis workbook session (the file has no "format": "redis-workbook-session").' };
  }
  const version = (data as { version?: unknown }).version;
  if (version !== SESSION_VERSION) return { ok: false, message: `This session file has version ${JSON.stringify(version)}; this workbook reads version ${SESSION_VERSION}.` };
  const parsed = sessionSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length === 0 ? 'the file' : issue.path.map(String).join('.');
    return { ok: false, message: `The session file is damaged: ${where}: ${issue.message}.` };
  }
  const s = parsed.data;
  const branches = new Map(s.branches.map((b) => [b.id, b]));
  if (branches.size !== s.branches.length) return damaged('two branches have the same id');
  if (!branches.has(s.activeBranch)) return damaged('the active branch is not among the branches');
  for (const b of s.branches) {
    const log = s.logs[b.id];
    if (log === undefined) return damaged(`branch ${b.name} has no action log`);
    if (b.parent !== null && !branches.has(b.parent)) return damaged(`branch ${b.name} comes from a branch that is not there`);
    const bad = momentProblem(b.head, log.length, b.startUs);
    if (bad === null && log.some((a) => a.t < b.startUs || a.t - b.startUs > MAX_VIRTUAL_US)) return damaged(`branch ${b.name} has an action outside its world's time`);
    if (bad !== null) return damaged(`branch ${b.name}: ${bad}`);
    for (let i = 1; i < log.length; i++) if (log[i]!.n < log[i - 1]!.n || log[i]!.t < log[i - 1]!.t) return damaged(`branch ${b.name}'s actions are out of order`);
  }
  const ids = new Set<string>();
  for (const c of s.checkpoints) {
    if (ids.has(c.id)) return damaged('two checkpoints have the same id');
    ids.add(c.id);
    const b = branches.get(c.branch);
    if (b === undefined) return damaged(`checkpoint "${c.label}" belongs to no branch`);
    const bad = momentProblem(c.moment, s.logs[b.id]!.length, b.startUs);
    if (bad !== null) return damaged(`checkpoint "${c.label}": ${bad}`);
  }
  const safe: SessionFile = {
    ...(s as unknown as SessionFile),
    branches: s.branches.map((b) => ({ ...b, head: safeMoment(b.head as Moment) })),
    checkpoints: s.checkpoints.map((c) => ({ ...c, moment: safeMoment(c.moment as Moment) })),
  };
  return { ok: true, session: safe };
}

function damaged(why: string): SessionParse {
  return { ok: false, message: `The session file is damaged: ${why}.` };
}

function momentProblem(m: z.infer<typeof momentSchema>, logLength: number, startUs: number): string | null {
  if (m.actionCount > logLength) return 'it needs more actions than its log holds';
  if (m.nowUs < startUs) return 'its clock is before the world began';
  if (m.nowUs - startUs > MAX_VIRTUAL_US) return 'its clock is more than a year after the world began, further than a page can replay';
  const ids = new Set(m.terminals.map((t) => t.id));
  if (ids.size !== m.terminals.length) return 'two terminals have the same id';
  if (m.active !== null && !ids.has(m.active)) return 'the active terminal is not among its terminals';
  return null;
}

function safeMoment(m: Moment): Moment {
  return {
    ...m,
    terminals: m.terminals.map((t) => ({
      ...t,
      screen: safeScreen(t.screen),
      // A line holding control characters could drive the terminal when recalled.
      history: t.history.filter((line) => !/[\x00-\x1f\x7f-\x9f]/.test(line)),
    })),
  };
}

/**
 * The sequences a saved screen may hold, because the terminal itself
 * writes them: cursor moves, erasing, colours (the prompt's dim text),
 * showing and hiding the cursor, and clear.
 * Anything else (a title, a clipboard write, a query) is shown in caret
 * notation instead of reaching xterm.js.
 */
const TERMINAL_OWN = /\x1b\[(?:[0-9;]{0,16}[ABCDGHJKm]|\?25[hl])/g;

/** A saved screen with every control sequence but the terminal's own made visible. */
export function safeScreen(text: string): string {
  let out = '';
  let at = 0;
  for (const m of text.matchAll(TERMINAL_OWN)) {
    out += visibleControls(text.slice(at, m.index)) + m[0];
    at = m.index + m[0].length;
  }
  return out + visibleControls(text.slice(at));
}

/** Parses an exported file's text. */
export function parseSessionText(text: string): SessionParse {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, message: 'This file is not a Redis workbook session: it is not JSON.' };
  }
  return checkSession(data);
}
