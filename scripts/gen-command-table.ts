/**
 * Generates the command facts of emulator/server/data from a real
 * redis-server 7.0, in two files: commands-7.0.json, what every server
 * needs (arity, flags, key positions and specs, ACL categories, tips,
 * subcommands, and each command's group), and command-docs-7.0.json, the
 * rest of COMMAND DOCS (since, doc flags, the argument structure), which
 * only COMMAND DOCS and redis-cli's help read and which loads on demand.
 * Prose (summaries, complexity, history, argument summaries) is not
 * copied: our own summaries live in emulator/commands/summaries.ts.
 *
 *   npm run gen:commands
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRealRedis, RawConnection } from '../tests/support/real-redis.js';
import { MapReply, SetReply, StatusReply, type Reply } from '../emulator/resp/reply.js';

type Tree = string | number | null | Tree[] | { s: string } | { m: Tree[] } | { set: Tree[] };

function toTree(r: Reply): Tree {
  if (typeof r === 'string' || typeof r === 'number' || r === null) return r;
  if (Array.isArray(r)) return r.map(toTree);
  if (r instanceof StatusReply) return { s: r.text };
  if (r instanceof MapReply) return { m: r.flat.map(toTree) };
  if (r instanceof SetReply) return { set: r.items.map(toTree) };
  throw new Error('unexpected reply in command info: ' + String(r));
}

function mapGet(m: MapReply, key: string): Reply | undefined {
  for (let i = 0; i < m.flat.length; i += 2) if (m.flat[i] === key) return m.flat[i + 1];
  return undefined;
}

/** Drops prose from an argument tree: summaries and display text stay ours. */
function stripArgs(args: Reply): Reply {
  if (!Array.isArray(args)) return args;
  return args.map((a) => {
    if (!(a instanceof MapReply)) return a;
    const flat: Reply[] = [];
    for (let i = 0; i < a.flat.length; i += 2) {
      const k = a.flat[i];
      if (k === 'summary') continue;
      flat.push(k!, k === 'arguments' ? stripArgs(a.flat[i + 1]!) : a.flat[i + 1]!);
    }
    return new MapReply(flat);
  });
}

interface Record {
  name: string;
  info: Tree;
  docs: { since?: string; group: string; docFlags?: Tree; deprecatedSince?: string; arguments?: Tree };
  subcommands?: Record[];
}

/** What commands-7.0.json keeps of a record: the documentation's group only. */
interface CoreRecord {
  name: string;
  info: Tree;
  docs: { group: string };
  subcommands?: CoreRecord[];
}

function buildRecord(info: Reply[], docs: MapReply | undefined): Record {
  const name = info[0] as string;
  const subInfo = info[9] as Reply[];
  const infoWithoutSubs = info.slice(0, 9);
  const d: Record['docs'] = { group: String(docs ? mapGet(docs, 'group') : 'generic') };
  if (docs) {
    const since = mapGet(docs, 'since');
    if (typeof since === 'string') d.since = since;
    const docFlags = mapGet(docs, 'doc_flags');
    if (docFlags) d.docFlags = toTree(docFlags);
    const dep = mapGet(docs, 'deprecated_since');
    if (typeof dep === 'string') d.deprecatedSince = dep;
    const args = mapGet(docs, 'arguments');
    if (args) d.arguments = toTree(stripArgs(args));
  }
  const rec: Record = { name, info: toTree(infoWithoutSubs), docs: d };
  if (Array.isArray(subInfo) && subInfo.length > 0) {
    const subDocs = docs ? (mapGet(docs, 'subcommands') as MapReply | undefined) : undefined;
    rec.subcommands = subInfo
      .map((s) => buildRecord(s as Reply[], subDocs ? (mapGet(subDocs, (s as Reply[])[0] as string) as MapReply) : undefined))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }
  return rec;
}

async function main(): Promise<void> {
  const real = await startRealRedis();
  try {
    const c = await RawConnection.open(real.port);
    await c.command(['HELLO', '3']);
    const all = (await c.command(['COMMAND'])) as Reply[];
    const docs = (await c.command(['COMMAND', 'DOCS'])) as MapReply;
    const version = (await c.command(['INFO', 'server'])) as unknown as { text: string };
    c.close();
    const records = all
      .map((info) => buildRecord(info as Reply[], mapGet(docs, (info as Reply[])[0] as string) as MapReply))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const ver = /redis_version:(\S+)/.exec(String(version.text ?? version))?.[1] ?? 'unknown';
    const dir = join(dirname(fileURLToPath(import.meta.url)), '../emulator/server/data');
    mkdirSync(dir, { recursive: true });
    const docsByName: { [name: string]: Omit<Record['docs'], 'group'> } = {};
    const split = (r: Record): CoreRecord => {
      const { group, ...rest } = r.docs;
      docsByName[r.name] = rest;
      return { name: r.name, info: r.info, docs: { group }, ...(r.subcommands ? { subcommands: r.subcommands.map(split) } : {}) };
    };
    const core = records.map(split);
    writeFileSync(join(dir, 'commands-7.0.json'), JSON.stringify({ source: `redis-server ${ver} COMMAND, and the group of each command from COMMAND DOCS`, commands: core }) + '\n');
    writeFileSync(join(dir, 'command-docs-7.0.json'), JSON.stringify({ source: `redis-server ${ver} COMMAND DOCS (prose removed; the group is in commands-7.0.json)`, docs: docsByName }) + '\n');
    console.log(`wrote ${records.length} commands from redis ${ver} to ${dir}`);
  } finally {
    await real.stop();
  }
}

await main();
