import { LINK_PROFILES, parseBandwidth, parseDurationUs } from '../../emulator/sim/index.js';
import { parseServerRef, type WorldSpec } from './schema.js';

/**
 * The lines of a lesson's ```sim block: the verbs of the host shell's
 * `sim` command (emulator/programs/shell/sim-verbs.ts) that act on the
 * world, plus three that act on a server the way an operator would from
 * its host's shell:
 *
 *   start A[:PORT]   redis-server /etc/redis/redis.conf (the lesson's config)
 *   stop A[:PORT]    kill PID    (SIGTERM: redis-server shuts down, saving if it should)
 *   kill A[:PORT]    kill -9 PID (the process dies at once)
 *
 * and one to type any line into a root shell on a host, for what an
 * operator or a client does in the middle of the events:
 *
 *   shell app redis-cli -h A SET flag:last 1
 *
 * The lines of a block happen back to back in virtual time: each starts
 * as soon as the one before has ended (a shell line's program included).
 *
 * Each line is checked when the lesson is read, so a typo in a lesson
 * fails its validation instead of a learner's click.
 */
export interface EventLine {
  readonly verb: string;
  readonly args: readonly string[];
  /** The host whose shell plays the line (a sim verb may name another host). */
  readonly host: string;
}

const SERVER_VERBS = new Set(['start', 'stop', 'kill']);

/** Verbs of `sim` a lesson may play, with how many arguments each takes (min, max). */
const SIM_VERBS: Record<string, [number, number]> = {
  'power-loss': [1, 1],
  'power-on': [1, 1],
  partition: [2, 3],
  heal: [0, 2],
  link: [3, 3],
  latency: [3, 3],
  bandwidth: [3, 3],
  'disk-full': [1, 2],
  'disk-error': [2, 3],
  'flip-byte': [2, 3],
  advance: [1, 1],
};

/** Every verb a ```sim block may use. */
export const EVENT_VERBS: readonly string[] = [...Object.keys(SIM_VERBS), ...SERVER_VERBS, 'shell'];

/** Reads one event line; throws an Error saying what is wrong with it. */
export function parseEventLine(line: string, world: WorldSpec): EventLine {
  const words = line.trim().split(/\s+/);
  const verb = words[0] ?? '';
  const args = words.slice(1);
  const hosts = new Set(world.hosts.map((h) => h.name));
  const firstHost = world.hosts[0]!.name;
  const needHost = (h: string | undefined): string => {
    if (h === undefined || !hosts.has(h)) throw new Error(`"${line}": no host named ${JSON.stringify(h ?? '')} in the lesson's world`);
    return h;
  };
  if (verb === 'shell') {
    const at = line.trim().slice('shell'.length).trim();
    const host = /^\S+/.exec(at)?.[0];
    const rest = host === undefined ? '' : at.slice(host.length).trim();
    if (rest === '') throw new Error(`"${line}": shell takes a host and the line to type there`);
    return { verb, args: [needHost(host), rest], host: host! };
  }
  if (SERVER_VERBS.has(verb)) {
    if (args.length !== 1) throw new Error(`"${line}": ${verb} takes one server, HOST or HOST:PORT`);
    const { host, port } = parseServerRef(args[0]!);
    needHost(host);
    if (!world.servers.some((s) => s.host === host && s.port === port)) {
      throw new Error(`"${line}": the lesson's world has no server ${host}:${port} (declare it under world.servers)`);
    }
    return { verb, args, host };
  }
  const arity = SIM_VERBS[verb];
  if (arity === undefined) throw new Error(`"${line}": unknown event "${verb}" (one of ${EVENT_VERBS.join(', ')})`);
  if (args.length < arity[0] || args.length > arity[1]) throw new Error(`"${line}": ${verb} takes ${arity[0] === arity[1] ? arity[0] : `${arity[0]} to ${arity[1]}`} arguments`);
  switch (verb) {
    case 'advance':
      if (parseDurationUs(args[0]!) === null) throw new Error(`"${line}": cannot read "${args[0]}" as a duration (400ms, 2s, 1m)`);
      return { verb, args, host: firstHost };
    case 'heal':
      if (args.length === 1) throw new Error(`"${line}": heal takes no host or two`);
      for (const h of args) needHost(h);
      return { verb, args, host: args[0] ?? firstHost };
    case 'partition':
      needHost(args[0]);
      needHost(args[1]);
      if (args.length === 3 && args[2] !== '--one-way') throw new Error(`"${line}": the third argument of partition can only be --one-way`);
      return { verb, args, host: args[0]! };
    case 'link':
    case 'latency':
    case 'bandwidth': {
      needHost(args[0]);
      needHost(args[1]);
      const v = args[2]!;
      if (verb === 'link' && !(v in LINK_PROFILES)) throw new Error(`"${line}": unknown link profile "${v}" (${Object.keys(LINK_PROFILES).join(', ')})`);
      if (verb === 'latency' && parseDurationUs(v) === null) throw new Error(`"${line}": cannot read "${v}" as a duration`);
      if (verb === 'bandwidth' && parseBandwidth(v) === null) throw new Error(`"${line}": cannot read "${v}" as a bandwidth`);
      return { verb, args, host: args[0]! };
    }
    case 'disk-full':
      if (args[1] !== undefined && args[1] !== 'on' && args[1] !== 'off') throw new Error(`"${line}": disk-full takes on or off`);
      return { verb, args, host: needHost(args[0]) };
    case 'disk-error':
      if (!['write', 'fsync', 'rename'].includes(args[1]!)) throw new Error(`"${line}": disk-error fails write, fsync or rename`);
      return { verb, args, host: needHost(args[0]) };
    case 'flip-byte':
      if (!args[1]!.startsWith('/')) throw new Error(`"${line}": flip-byte needs an absolute path`);
      if (args[2] !== undefined && !/^\d+$/.test(args[2])) throw new Error(`"${line}": the offset must be a number of bytes`);
      return { verb, args, host: needHost(args[0]) };
    default:
      return { verb, args, host: needHost(args[0]) };
  }
}
