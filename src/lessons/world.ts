// Every command's code, also those kept apart (emulator/commands/on-demand.ts).
import '../../emulator/commands/on-demand-handlers.js';
import { REDIS_CONF, installRedisHost } from '../../emulator/programs/index.js';
import { HostShell, registerShellProgram, shellQuote } from '../../emulator/programs/shell-parts.js';
import { ErrorReply, splitArgs } from '../../emulator/index.js';
import { parseDurationUs } from '../../emulator/sim/index.js';
import { World } from '../../emulator/world/world.js';
import { parseServerRef, type ServerSpec, type WorldSpec } from './schema.js';

/**
 * Builds a lesson's starting world from its declarative spec, entirely
 * through actions the world records (hosts, links, shell lines, sessions),
 * so a checkpoint of a lesson's world restores like any other:
 *
 *   World.restore(cp, registerShellProgram)
 *
 * `setup` registers the host's own programs first (the page's, so a
 * checkpoint of the lesson's world replays them too).
 *
 * Every host gets Debian's redis-server package (host-setup.ts). Each
 * server's configuration is written to its host as a file (the package's
 * redis.conf with the lesson's directives in place), synced, and the
 * server started from it by a root shell, as an operator would; so
 * `redis-server /etc/redis/redis.conf` on that host, or a lesson's `start`
 * event, starts it again the same way. Then each server runs the lesson's
 * initial data, and virtual time runs on a little (world.settle, 2 s by
 * default) so that data is on the disk when the learner starts.
 */
export function buildLessonWorld(spec: WorldSpec, setup?: (world: World) => void): World {
  const world = new World({ seed: spec.seed });
  registerShellProgram(world);
  setup?.(world);
  for (const h of spec.hosts) {
    world.addHost(h.name, h.profile);
    installRedisHost(world, h.name);
  }
  for (const l of spec.links) world.link(l.a, l.b, l.profile);
  for (const f of spec.files) writeFile(world, f.host, f.path, f.text);
  for (const s of spec.servers) startServer(world, s);
  for (const [ref, commands] of Object.entries(spec.data)) loadData(world, ref, commands, spec);
  world.advance(parseDurationUs(spec.settle)! / 1000);
  return world;
}

/** Where a server's configuration lives on its host: the package's file for 6379, one per port otherwise. */
export function configPath(port: number): string {
  return port === 6379 ? '/etc/redis/redis.conf' : `/etc/redis/redis-${port}.conf`;
}

/**
 * The configuration file of a lesson's server: the package's redis.conf
 * with the lesson's directives replacing the lines they name, and the
 * others appended under a comment, so `cat` shows the learner one
 * ordinary file.
 */
export function configText(s: ServerSpec): string {
  const overrides = new Map(Object.entries({ ...s.config, port: String(s.port) }));
  const used = new Set<string>();
  const lines = REDIS_CONF.split('\n').map((line) => {
    const name = /^([a-z][a-z0-9-]*)\s/.exec(line)?.[1];
    if (name === undefined || !overrides.has(name)) return line;
    used.add(name);
    return `${name} ${configValue(overrides.get(name)!)}`;
  });
  const extra = [...overrides].filter(([name]) => !used.has(name));
  let text = lines.join('\n');
  if (extra.length !== 0) text += `\n# Settings of this lesson\n${extra.map(([n, v]) => `${n} ${configValue(v)}`).join('\n')}\n`;
  return text;
}

/** A directive's value as redis.conf spells it: quoted when empty or spaced only where Redis would split it wrongly. */
function configValue(v: string): string {
  if (v === '') return '""';
  return v;
}

/** Runs lines in a root shell on a host, waits for each to end, and logs out. Throws with the output if a line fails. */
export function runSetupShell(world: World, host: string, lines: readonly string[]): void {
  let output = '';
  const shell = new HostShell(world, host, (t) => (output += t));
  for (const line of lines) {
    shell.run(line);
    if (!world.runUntil(() => !shell.busy, { maxMs: 60_000 })) throw new Error(`lesson world: "${line}" on ${host} did not end within a minute`);
    if (shell.lastStatus !== 0) throw new Error(`lesson world: "${line}" on ${host} failed (${shell.lastStatus}): ${output.trim()}`);
  }
  shell.run('exit');
}

/** The shell lines that write a text file line by line. */
function echoLines(path: string, text: string): string[] {
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((l, i) => `echo ${shellQuote(l, true)} ${i === 0 ? '>' : '>>'} ${path}`);
}

function writeFile(world: World, host: string, path: string, text: string): void {
  runSetupShell(world, host, [...echoLines(path, text), 'sync']);
}

function startServer(world: World, s: ServerSpec): void {
  const path = configPath(s.port);
  runSetupShell(world, s.host, [...echoLines(path, configText(s)), 'sync', `redis-server ${path}`]);
  if (world.redis(s.host, s.port) === undefined) throw new Error(`lesson world: redis-server did not start on ${s.host}:${s.port}`);
  // Let it finish starting (loading nothing, creating the AOF's first base file) before data comes in.
  world.runUntil(() => !isLoading(world, s.host, s.port), { maxMs: 10_000 });
}

function isLoading(world: World, host: string, port: number): boolean {
  const p = world.redis(host, port);
  return p === undefined || p.server.stats.persistence.loading;
}

const dataSessions = new WeakMap<World, number>();

/** Sends the lesson's commands to a server over a session from its own host, and waits for every reply. */
function loadData(world: World, ref: string, commands: readonly string[], spec: WorldSpec): void {
  const { host, port } = parseServerRef(ref);
  const n = (dataSessions.get(world) ?? 0) + 1;
  dataSessions.set(world, n);
  const id = `lesson-data-${n}`;
  const session = world.openSession(id, host, `${host}:${port}`);
  let sent = 0;
  for (const line of commands) {
    const argv = splitArgs(line);
    if (argv === null || argv.length === 0) throw new Error(`lesson world: cannot read the data line "${line}" for ${ref}`);
    world.send(id, argv);
    sent++;
  }
  const done = world.runUntil(() => session.replies().length >= sent || session.closed, { maxMs: 600_000 });
  if (!done || session.replies().length < sent) throw new Error(`lesson world: ${ref} did not answer the lesson's data (seed ${spec.seed})`);
  const replies = session.replies();
  const failed = replies.findIndex((r) => r instanceof ErrorReply);
  if (failed >= 0) throw new Error(`lesson world: the data line "${commands[failed]}" for ${ref} failed: ${(replies[failed] as ErrorReply).message}`);
  world.apply({ kind: 'closeSession', id });
}
