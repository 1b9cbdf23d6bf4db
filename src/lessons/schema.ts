import { z } from 'zod';
import { HOST_PROFILES, LINK_PROFILES } from '../../emulator/sim/index.js';
import { HAPPENINGS } from './happening-names.js';

/**
 * The schema of a lesson file's data: the front matter (the starting
 * world and what the catalogue shows) and the YAML inside ```check
 * blocks. Everything is plain data; nothing in a lesson file is ever run
 * as code. The format itself is described in lessons/README.md.
 */

const name = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'a name of letters, digits, "_", "." and "-", starting with a letter or digit');

/** A server by where it runs: "A" (port 6379) or "A:6380". */
export const serverRef = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*(:\d{1,5})?$/, 'a server as HOST or HOST:PORT');

const hostProfile = z.enum(Object.keys(HOST_PROFILES) as [keyof typeof HOST_PROFILES, ...Array<keyof typeof HOST_PROFILES>]);
const linkProfile = z.enum(Object.keys(LINK_PROFILES) as [keyof typeof LINK_PROFILES, ...Array<keyof typeof LINK_PROFILES>]);

/** A config value as YAML may write it: numbers and booleans are turned into Redis's text. */
const configValue = z.union([z.string(), z.number(), z.boolean()]).transform((v) => (typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v)));

export const hostSpec = z.strictObject({
  name,
  profile: hostProfile.default('metal'),
});

export const linkSpec = z.strictObject({
  a: name,
  b: name,
  profile: linkProfile,
});

export const serverSpec = z.strictObject({
  host: name,
  port: z.number().int().min(1).max(65535).default(6379),
  /** Directives that differ from the Debian package's redis.conf, by name. */
  config: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/, 'a config directive name in lower case'), configValue).default({}),
});

export const terminalSpec = z.discriminatedUnion('kind', [
  z.strictObject({
    /** The tab's title, and how blocks and checks name it ("Frank"). */
    name,
    kind: z.literal('redis-cli'),
    /** The host redis-cli runs on: its link to the server sets the latency. */
    from: name,
    server: serverRef,
  }),
  z.strictObject({
    name,
    kind: z.literal('shell'),
    host: name,
  }),
]);

export const worldSpec = z.strictObject({
  seed: z.number().int().min(0).max(2 ** 31 - 1),
  hosts: z.array(hostSpec).min(1),
  links: z.array(linkSpec).default([]),
  servers: z.array(serverSpec).default([]),
  /** Files written on hosts before any server starts (a sentinel.conf), each as an operator would with echo, and synced. */
  files: z
    .array(z.strictObject({ host: name, path: z.string().regex(/^\/[^\s]*$/, 'an absolute path without spaces'), text: z.string() }))
    .default([]),
  /** Commands each server runs before the learner starts, in order: HOST or HOST:PORT to lines as redis-cli takes them. */
  data: z.record(serverRef, z.array(z.string())).default({}),
  /**
   * Virtual time that passes after the data is in, before the learner
   * starts ("2s", "500ms"): long enough for an everysec fsync, so the
   * data the lesson starts with is on the disk.
   */
  settle: z.string().regex(/^\d+(\.\d+)?(us|ms|s|m)$/, 'a duration such as 2s or 500ms').default('2s'),
  /** The terminals the lesson opens, in tab order; the first is the active one. */
  terminals: z.array(terminalSpec).default([]),
});

export const frontMatter = z.strictObject({
  /** Stable identifier (progress is saved under it); the file is named NN-<id>.md. */
  id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lower-case words joined by "-"'),
  /** The catalogue's number (LESSONS.md). */
  number: z.number().int().min(0),
  /** The book's section, "4.1.2", or "" when the lesson is not from the book. */
  section: z.string().default(''),
  title: z.string().min(1),
  /** One sentence for the lesson picker. */
  summary: z.string().min(1),
  world: worldSpec,
});

// ---- checks ----

/** A number's bounds; any of them. */
const numberExpect = {
  equals: z.number().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
};

const common = {
  /** What the check asks for, in the lesson's words ("The power was cut during a write"); without it the workbook says it from the check. */
  label: z.string().optional(),
  /** The lesson's own words when the check fails, shown before what the workbook finds now. */
  'why-not': z.string().optional(),
};

/**
 * Moments of a step a check can look back to (moments.ts): the last time
 * in this step that the server's host lost power, that the server was
 * killed (kill -9), that it crashed (either), that its process ended for
 * any reason (a clean shutdown too), or that it forked a child (BGSAVE,
 * BGREWRITEAOF, a save rule). What the check reads is taken at that
 * instant, before the process dies or while the child starts.
 */
export const MOMENTS = ['power-loss', 'kill', 'crash', 'stop', 'fork'] as const;
export const moment = z.enum(MOMENTS);
export type Moment = z.infer<typeof moment>;

/**
 * Checks on the world's state may be read as it was at a moment of this
 * step instead of now, or only once something has happened in it.
 */
const atMoment = {
  /** Judge the world as it was at this moment of the step ("appendfsync was no when the power went out"). */
  at: moment.optional(),
  /** Not done until this has happened on the check's host in this step ("dump.rdb is sound, after the byte flip"). */
  after: z.enum(HAPPENINGS).optional(),
};

/** A key of a server's keyspace, read without touching it. */
const keyCheck = z.strictObject({
  kind: z.literal('key'),
  key: z.string(),
  on: serverRef,
  db: z.number().int().min(0).default(0),
  /** Whether the key exists (not expired). Default: true, unless another expectation says otherwise. */
  exists: z.boolean().optional(),
  /** A string's value. */
  equals: z.string().optional(),
  /** A string with the same value as the key on this other server ("the replica has the vote"). */
  'same-as': z.strictObject({ on: serverRef }).optional(),
  type: z.enum(['string', 'list', 'hash', 'set', 'zset']).optional(),
  /** Seconds to live (TTL): -1 means no expiry. */
  ttl: z.strictObject(numberExpect).optional(),
  /** STRLEN, LLEN, HLEN, SCARD or ZCARD, by the key's type. */
  length: z.strictObject(numberExpect).optional(),
  /** A hash field's value. */
  field: z.strictObject({ name: z.string(), equals: z.string().optional(), exists: z.boolean().optional() }).optional(),
  /** A set or sorted-set member, or a list item. */
  member: z.strictObject({ name: z.string(), exists: z.boolean().default(true), score: z.number().optional() }).optional(),
  /** A string's value read as a number. */
  number: z.strictObject(numberExpect).optional(),
  /** A command that writes this key ran on the server during this step (SET, INCR, EXPIRE...). */
  written: z.literal(true).optional(),
  /** The value now is the one it had at the moment: nothing was lost ("the vote survived the kill"). */
  kept: moment.optional(),
  /** The value it had at the moment is gone: the last writes before it were lost ("the vote acknowledged after the last fsync is gone"). */
  lost: moment.optional(),
  ...atMoment,
  ...common,
});

/** An INFO field of a server, compared with a number, a text, or the same or another field of another server. */
const infoCheck = z.strictObject({
  kind: z.literal('info'),
  info: z.string().regex(/^[a-z0-9_.]+$/, 'an INFO field name, or slave0.offset for a part of a field'),
  on: serverRef,
  ...numberExpect,
  /** The field as text. */
  is: z.string().optional(),
  /** The same as this field (or the same field) of this server. */
  'same-as': z.strictObject({ on: serverRef, info: z.string().optional() }).optional(),
  ...atMoment,
  ...common,
});

const configCheck = z.strictObject({
  kind: z.literal('config'),
  config: z.string().regex(/^[a-z][a-z0-9-]*$/),
  on: serverRef,
  equals: z.string(),
  ...atMoment,
  ...common,
});

const dbsizeCheck = z.strictObject({
  kind: z.literal('dbsize'),
  dbsize: serverRef,
  db: z.number().int().min(0).default(0),
  ...numberExpect,
  ...atMoment,
  ...common,
});

const serverCheck = z.strictObject({
  kind: z.literal('server'),
  server: serverRef,
  /** Whether redis-server is running there (and its host has power). */
  running: z.boolean(),
  ...atMoment,
  ...common,
});

const hostCheck = z.strictObject({
  kind: z.literal('host'),
  host: name,
  powered: z.boolean(),
  ...common,
});

/** A file on a host's disk. */
const fileCheck = z.strictObject({
  kind: z.literal('file'),
  file: z.string().regex(/^\//, 'an absolute path'),
  on: name,
  exists: z.boolean().optional(),
  size: z.strictObject(numberExpect).optional(),
  /** Every byte is on the durable medium (a power loss now would lose nothing of it). */
  durable: z.boolean().optional(),
  /** Bytes written but only in the page cache. */
  'cached-bytes': z.strictObject(numberExpect).optional(),
  /** Whether redis-check-rdb or redis-check-aof finds the file sound. */
  valid: z.enum(['rdb', 'aof']).optional(),
  invalid: z.enum(['rdb', 'aof']).optional(),
  ...atMoment,
  ...common,
});

/**
 * Something that happened during this step, by its name (happenings.ts):
 * a power cut, a fork, a snapshot written... Each has words of its own
 * for the learner, so a lesson needs no pattern to say it.
 */
const happenedCheck = z.strictObject({
  kind: z.literal('happened'),
  happened: z.enum(HAPPENINGS),
  /** Where: a host, or HOST:PORT. */
  on: serverRef,
  count: z.strictObject(numberExpect).default({ min: 1 }),
  ...common,
});

/** A program ran on a host during this step ("redis-check-aof", with "--fix" among its arguments). */
const ranCheck = z.strictObject({
  kind: z.literal('ran'),
  ran: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.+-]*$/, 'a program name such as redis-check-aof'),
  on: name,
  /** Words that must all be among the program's arguments. */
  args: z.string().optional(),
  count: z.strictObject(numberExpect).default({ min: 1 }),
  ...common,
});

/**
 * A Redis command ran on a server during this step, from any client:
 * "LPOP queue:emails", "CONFIG SET appendfsync always" (the words a
 * command line starts with, any case).
 */
const commandCheck = z.strictObject({
  kind: z.literal('command'),
  command: z.string().min(1),
  on: serverRef,
  count: z.strictObject(numberExpect).default({ min: 1 }),
  ...common,
});

/** Entries in the world's trace since the step began: prefer happened, ran and command, which speak the learner's words. */
const traceCheck = z.strictObject({
  kind: z.literal('trace'),
  /** The entry kind: cmd, spawn, exit, log, fsync, rename, power-loss, torn-write, ... */
  trace: z.string(),
  /** Who: a host name, 'net' or 'sim'. */
  source: z.string().optional(),
  /** A regular expression the entry's text must match. */
  text: z.string().optional(),
  count: z.strictObject(numberExpect).default({ min: 1 }),
  ...common,
});

/** The last reply a redis-cli terminal received during this step, as redis-cli printed it. */
const replyCheck = z.strictObject({
  kind: z.literal('reply'),
  reply: name,
  equals: z.string().optional(),
  /** A regular expression. */
  matches: z.string().optional(),
  ...common,
});

/**
 * A code cell's last run: how it ended, and optionally one of the values
 * it reported with report(name, value), or a part of it by path.
 */
const cellCheck = z.strictObject({
  kind: z.literal('cell'),
  cell: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'a cell id'),
  /** How the run ended: done (to its end, no error; the default), failed, or stopped. */
  status: z.enum(['done', 'failed', 'stopped']).default('done'),
  /** A report's name. */
  report: z.string().optional(),
  /** A part of the report's value: property names and list indexes joined by "." ("vpn.pipelined"). */
  path: z.string().optional(),
  ...numberExpect,
  /** The value as text (strings as they are, anything else as JSON). */
  is: z.string().optional(),
  ...common,
});

/**
 * The acknowledged-writes ledger (emulator/world/ack-ledger.ts): every
 * write a client of the world was told succeeded during this step,
 * checked against the data of the server that holds the truth now. A
 * relation, never a count: `lost` (some acknowledged write is gone),
 * `kept` (at least one was acknowledged, and every one survives).
 */
const ledgerCheck = z.strictObject({
  kind: z.literal('ledger'),
  ledger: z.enum(['lost', 'kept']),
  /** The server whose data is the truth; without it, the one primary the world has now. */
  on: serverRef.optional(),
  /** With lost: what the lost writes are explained by (a partition that cut their server off, or its crash). */
  cause: z.enum(['partition', 'crash']).optional(),
  ...common,
});

export const checkSchema = z.discriminatedUnion('kind', [
  ledgerCheck,
  keyCheck,
  infoCheck,
  configCheck,
  dbsizeCheck,
  serverCheck,
  hostCheck,
  fileCheck,
  traceCheck,
  replyCheck,
  cellCheck,
  happenedCheck,
  ranCheck,
  commandCheck,
]);

/** The key that names a check's kind, as the lesson writes it ("- key: flag:last"). */
export const CHECK_KINDS = ['key', 'info', 'config', 'dbsize', 'server', 'host', 'file', 'trace', 'reply', 'cell', 'happened', 'ran', 'command', 'ledger'] as const;

export type HostSpec = z.infer<typeof hostSpec>;
export type LinkSpec = z.infer<typeof linkSpec>;
export type ServerSpec = z.infer<typeof serverSpec>;
export type TerminalSpec = z.infer<typeof terminalSpec>;
export type WorldSpec = z.infer<typeof worldSpec>;
export type FrontMatter = z.infer<typeof frontMatter>;
export type Check = z.infer<typeof checkSchema>;
export type CheckKind = Check['kind'];

/** "A" or "A:6380" as host and port. */
export function parseServerRef(ref: string): { host: string; port: number } {
  const at = ref.indexOf(':');
  return at < 0 ? { host: ref, port: 6379 } : { host: ref.slice(0, at), port: Number(ref.slice(at + 1)) };
}

/** The canonical "A:6379" form. */
export function serverKey(ref: string): string {
  const { host, port } = parseServerRef(ref);
  return `${host}:${port}`;
}
