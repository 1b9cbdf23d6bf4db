import { repr } from '../../../emulator/cli/format.js';
import { typeOf, stringOf, type TypeName, type Value } from '../../../emulator/keyspace/values.js';
import { bytesToHuman, usedMemory } from '../../../emulator/server/info.js';
import { RedisProcess } from '../../../emulator/sim/redis-daemon.js';
import type { World } from '../../../emulator/sim/world.js';
import { terminalText } from '../terminal/sanitize.js';

/**
 * What the cluster panel shows, derived from the world as plain data: the
 * panel never holds a reference into the emulator, and a view is only
 * rebuilt when the world has moved. Every text that comes from keys,
 * values or command lines is already quoted or made visible here, so
 * nothing the world holds is ever shown as it is.
 */
export interface ClusterView {
  readonly hosts: readonly HostView[];
}

export interface HostView {
  readonly name: string;
  readonly profile: string;
  readonly ip: string;
  readonly powered: boolean;
  readonly processes: readonly ProcessView[];
  readonly servers: readonly ServerView[];
}

export interface ProcessView {
  readonly pid: number;
  readonly name: string;
  /** The command line, control characters made visible. */
  readonly command: string;
}

export interface ServerView {
  readonly pid: number;
  readonly port: number;
  readonly clients: number;
  readonly usedMemoryBytes: number;
  /** INFO's used_memory_human: "1.03M". */
  readonly usedMemoryHuman: string;
  /** The databases that hold keys. */
  readonly dbs: readonly DbView[];
}

export interface DbView {
  readonly index: number;
  readonly keys: number;
  readonly expires: number;
  /** The first keys of the database, as a glance at what it holds. */
  readonly sample: readonly KeySample[];
}

export interface KeySample {
  /** The key as redis-cli prints it: quoted, every non-printable byte escaped. */
  readonly name: string;
  readonly type: TypeName;
  /** A string's value (quoted like the name, cut when long), or a collection's size. */
  readonly detail: string;
}

/** Keys shown per database. */
export const SAMPLE_KEYS = 8;
/** Characters of a quoted name or value shown before it is cut. */
export const PREVIEW_CHARS = 48;

export function clusterView(world: World): ClusterView {
  const hosts: HostView[] = [];
  for (const host of world.hosts.values()) {
    const processes: ProcessView[] = [];
    const servers: ServerView[] = [];
    for (const p of host.processes.values()) {
      processes.push({ pid: p.pid, name: terminalText(p.name), command: terminalText(p.argv.join(' ')) });
      if (p instanceof RedisProcess && p.alive) servers.push(serverView(p, world.kernel.now));
    }
    processes.sort((a, b) => a.pid - b.pid);
    hosts.push({ name: host.name, profile: host.profile.name, ip: host.ip, powered: host.powered, processes, servers });
  }
  return { hosts };
}

function serverView(p: RedisProcess, nowUs: number): ServerView {
  const server = p.server;
  const used = usedMemory(server);
  const nowMs = nowUs / 1000;
  const dbs: DbView[] = [];
  for (const db of server.dbs) {
    if (db.dict.size === 0) continue;
    const sample: KeySample[] = [];
    for (const [key, value] of db.dict) {
      // A key past its time but not yet reclaimed is gone for every client.
      const at = db.expires.size === 0 ? undefined : db.expires.get(key);
      if (at !== undefined && at <= nowMs) continue;
      sample.push({ name: preview(key), type: typeOf(value), detail: detail(value) });
      if (sample.length === SAMPLE_KEYS) break;
    }
    dbs.push({ index: db.id, keys: db.dict.size, expires: db.expires.size, sample });
  }
  return { pid: p.pid, port: p.port, clients: server.clients.size, usedMemoryBytes: used, usedMemoryHuman: bytesToHuman(used), dbs };
}

/** A byte string quoted as redis-cli quotes it, cut to PREVIEW_CHARS. */
export function preview(bytes: string): string {
  // Quoting at most the first bytes keeps a 512 MB value cheap to glance at.
  const head = bytes.length > PREVIEW_CHARS ? bytes.slice(0, PREVIEW_CHARS) : bytes;
  const quoted = repr(head);
  if (quoted.length <= PREVIEW_CHARS && head.length === bytes.length) return quoted;
  return quoted.slice(0, PREVIEW_CHARS - 1) + '…';
}

function detail(v: Value): string {
  if (typeof v === 'string' || v.type === 'string') return preview(stringOf(v));
  switch (v.type) {
    case 'list':
      return count(v.items.length, 'item');
    case 'hash':
      return count(v.map.size, 'field');
    case 'set':
      return count(v.set.size, 'member');
    case 'zset':
      return count(v.size, 'member');
  }
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
