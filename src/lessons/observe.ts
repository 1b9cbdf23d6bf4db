import { checkRdb, runRedisCheckAof } from '../../emulator/programs/shell-parts.js';
import type { Database } from '../../emulator/keyspace/database.js';
import { typeOf, type Value, infoText } from '../../emulator/server/index.js';
import type { DiskStat } from '../../emulator/sim/disk-api.js';
import { RedisProcess } from '../../emulator/process/index.js';
import type { World } from '../../emulator/world/world.js';

/**
 * Reading a world without changing it, for lesson checks. A client's
 * command would count in the server's statistics, stamp the key's access
 * time, delete a key whose time is up and leave a line in the trace; a
 * check must do none of that, so these functions read the emulator's
 * structures directly: the keyspace's dictionaries, INFO's text as the
 * server would render it, a disk's stat and bytes.
 */

/** The running redis-server on host:port, if its host has power and it is alive. */
export function runningServer(world: World, host: string, port: number): RedisProcess | null {
  const h = world.hosts.get(host);
  if (h === undefined || !h.powered) return null;
  for (const p of h.processes.values()) if (p instanceof RedisProcess && p.alive && p.port === port) return p;
  return null;
}

/** A key's value as a client would find it now: absent when its time is up, even before the server reclaims it. */
export function peekKey(world: World, db: Database, key: string): Value | undefined {
  const v = db.dict.get(key);
  if (v === undefined) return undefined;
  const at = db.expires.size === 0 ? undefined : db.expires.get(key);
  if (at !== undefined && at <= world.kernel.now / 1000) return undefined;
  return v;
}

/** TTL in whole seconds as TTL would answer (-1 without expiry), for a key that exists. */
export function peekTtlSeconds(world: World, db: Database, key: string): number {
  const at = db.expires.get(key);
  if (at === undefined) return -1;
  return Math.round((at - world.kernel.now / 1000) / 1000);
}

/** STRLEN, LLEN, HLEN, SCARD or ZCARD, by the value's type. */
export function valueLength(v: Value): number {
  if (typeof v === 'string') return v.length;
  switch (v.type) {
    case 'string':
      return v.length;
    case 'list':
      return v.items.length;
    case 'hash':
      return v.map.size;
    case 'set':
      return v.set.size;
    case 'zset':
      return v.size;
    case 'stream':
      return v.length;
  }
}

export { typeOf };

/**
 * A value as one string that two equal values share and two different
 * ones do not, to tell whether a key kept its value across a crash: a
 * string as it is, a collection by its type and its contents in a fixed
 * order (sets and hashes sorted, a list in its order).
 */
export function valueFingerprint(v: Value): string {
  if (typeof v === 'string') return `string:${v}`;
  switch (v.type) {
    case 'string':
      return `string:${(v as { s: string }).s}`;
    case 'list':
      return `list:${JSON.stringify(v.items.toArray())}`;
    case 'hash':
      return `hash:${JSON.stringify([...v.map].sort((a, b) => (a[0] < b[0] ? -1 : 1)))}`;
    case 'set':
      return `set:${JSON.stringify([...v.set].sort())}`;
    case 'zset':
      return `zset:${JSON.stringify([...v.dict].sort((a, b) => (a[0] < b[0] ? -1 : 1)))}`;
    case 'stream':
      return `stream:${JSON.stringify(v.parts.map((p) => (typeof p === 'string' ? p : String(p))))}`;
  }
}

/** The sections tried in turn for a field, cheapest and likeliest first. */
const INFO_SECTIONS = ['persistence', 'stats', 'replication', 'server', 'clients', 'cpu', 'keyspace', 'memory'];

/**
 * An INFO field as the server would print it now, or null. A dotted name
 * reads a part of a field with parts: "slave0.offset", "db0.keys".
 */
export function infoField(server: RedisProcess, field: string, section?: string): string | null {
  const [name, part] = field.split('.', 2) as [string, string | undefined];
  for (const s of section !== undefined ? [section] : INFO_SECTIONS) {
    const text = infoText(server.server, [s]);
    const at = text.indexOf(`\r\n${name}:`);
    const start = at < 0 ? (text.startsWith(`${name}:`) ? 0 : -1) : at + 2;
    if (start < 0) continue;
    const end = text.indexOf('\r\n', start);
    const value = text.slice(start + name.length + 1, end < 0 ? undefined : end);
    if (part === undefined) return value;
    for (const kv of value.split(',')) {
      const eq = kv.indexOf('=');
      if (kv.slice(0, eq) === part) return kv.slice(eq + 1);
    }
    return null;
  }
  return null;
}

/** A file's stat, or null when it does not exist (or its host is off: nothing can be read then). */
export function fileStat(world: World, host: string, path: string): DiskStat | null {
  const h = world.hosts.get(host);
  if (h === undefined) return null;
  try {
    return h.disk.exists(path) ? h.disk.stat(path) : null;
  } catch {
    return null;
  }
}

/** Whether redis-check-rdb finds the file sound, and the last thing it said. */
export function rdbVerdict(world: World, host: string, path: string): { ok: boolean; said: string } {
  let bytes: Uint8Array;
  try {
    bytes = world.host(host).disk.readFile(path);
  } catch {
    return { ok: false, said: 'the file cannot be read' };
  }
  const lines: string[] = [];
  const r = checkRdb(bytes, path, { out: (t) => lines.push(t), logWarning: () => {}, nowMs: world.kernel.now / 1000 });
  if (r.outcome === 'ok') return { ok: true, said: 'RDB looks OK' };
  // The tool's report names the error on the line after its banner: "[offset 98] RDB CRC error".
  const all = lines.join('').split('\n');
  const at = all.findIndex((l) => l.startsWith('--- RDB ERROR DETECTED ---'));
  const error = at < 0 ? '' : (all[at + 1] ?? '').replace(/^\[offset \d+\]\s*/, '');
  return { ok: false, said: error === '' ? 'the file is not a sound RDB file' : error };
}

/** Whether redis-check-aof (without --fix) finds the AOF sound: a manifest, an .aof file, or the appendonlydir. */
export function aofVerdict(world: World, host: string, path: string): { ok: boolean; said: string } {
  const disk = world.host(host).disk;
  let target = path;
  try {
    if (disk.stat(path).isDirectory) {
      const manifest = disk.readdir(path).find((n) => n.endsWith('.manifest'));
      if (manifest === undefined) return { ok: false, said: 'the directory holds no manifest' };
      target = `${path.replace(/\/$/, '')}/${manifest}`;
    }
  } catch {
    return { ok: false, said: 'the file does not exist' };
  }
  const lines: string[] = [];
  const code = runRedisCheckAof(disk, '/', ['redis-check-aof', target], (t) => lines.push(t), { nowMs: world.kernel.now / 1000 });
  return { ok: code === 0, said: lastLine(lines) };
}

function lastLine(chunks: readonly string[]): string {
  const lines = chunks.join('').split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines[lines.length - 1] ?? '';
}
