import type { RecordedAction, World } from '../../../emulator/world/world.js';
import { shellPartsNow } from '../shell-loader.js';
import { PROGRAMS, type DiskFault } from '../world-programs.js';

/**
 * Whether an outside action is a fault worth a checkpoint just before it,
 * and what to call that checkpoint: "before power loss on redis". Faults
 * come as the world's own actions (the cluster panel's buttons), as host
 * shell lines (`sim power-loss redis`, `kill -9 1234`, a lesson's scripted
 * events), or as commands that stop a server (SHUTDOWN). Read while the
 * world is still as it was before the action, so the process a kill
 * names can be looked up.
 */
export function faultLabel(world: World, rec: RecordedAction): string | null {
  const a = rec.action;
  switch (a.kind) {
    case 'powerOff':
      return `before power loss on ${a.host}`;
    case 'signal':
      return `before kill -${a.sig} of ${processName(world, a.host, a.pid)} on ${a.host}`;
    case 'partition':
      return `before partition ${a.a} ${a.oneWay ? '→' : '↔'} ${a.b}`;
    case 'send':
      return commandFault(a.argv, serverHost(world, a.id));
    case 'program': {
      if (a.name === PROGRAMS.diskFault) {
        const f = a.args as DiskFault;
        if ('full' in f) return f.full ? `before disk full on ${f.host}` : null;
        return `before ${f.fail} errors on ${f.host}'s disk`;
      }
      const args = a.args as { op?: unknown; id?: unknown; line?: unknown } | null;
      if (args === null || typeof args !== 'object' || typeof args.line !== 'string') return null;
      if (args.op !== undefined && args.op !== 'line') return null;
      const shellHost = typeof args.id === 'string' ? shellPartsNow()?.HostShell.all(world).find((s) => s.id === args.id)?.hostName : undefined;
      return shellLineFault(world, args.line, shellHost ?? null);
    }
    default:
      return null;
  }
}

/** A host shell line's first fault, if it has one. */
export function shellLineFault(world: World, line: string, shellHost: string | null): string | null {
  for (const command of line.split(/;|&&|\|\|?/)) {
    const words = command.trim().split(/\s+/).filter((w) => w !== '');
    const label = simpleCommandFault(world, words, shellHost);
    if (label !== null) return label;
  }
  return null;
}

function simpleCommandFault(world: World, words: string[], shellHost: string | null): string | null {
  const [cmd, ...args] = words;
  if (cmd === undefined) return null;
  const here = shellHost ?? 'this host';
  switch (cmd) {
    case 'sim':
      return simFault(args);
    case 'kill': {
      const signal = killSignal(args);
      const pids = args.filter((w) => /^\d+$/.test(w));
      if (pids.length === 0) return null;
      const names = pids.map((p) => (shellHost === null ? p : processName(world, shellHost, Number(p))));
      return `before kill -${signal} of ${names.join(', ')} on ${here}`;
    }
    case 'poweroff':
    case 'halt':
    case 'reboot':
      return `before ${cmd} on ${here}`;
    case 'rm':
      return args.some((a) => !a.startsWith('-')) ? `before rm ${args.filter((a) => !a.startsWith('-')).join(' ')} on ${here}` : null;
    case 'redis-cli': {
      const at = args.findIndex((w) => !w.startsWith('-') && !/^\d+$/.test(w) && !isOptionValue(args, w));
      if (at < 0) return null;
      const h = args.indexOf('-h');
      return commandFault(args.slice(at), h >= 0 && args[h + 1] !== undefined ? args[h + 1]! : here);
    }
    default:
      return null;
  }
}

function simFault(args: string[]): string | null {
  const [verb, a, b, c] = args;
  switch (verb) {
    case 'power-loss':
      return a === undefined ? null : `before power loss on ${a}`;
    case 'partition': {
      const hosts = args.slice(1).filter((w) => w !== '--one-way');
      if (hosts.length < 2) return null;
      return `before partition ${hosts[0]} ${args.includes('--one-way') ? '→' : '↔'} ${hosts[1]}`;
    }
    case 'disk-full':
      return a === undefined || b === 'off' ? null : `before disk full on ${a}`;
    case 'disk-error':
      return a === undefined || b === undefined ? null : `before ${b} errors on ${a}'s disk`;
    case 'flip-byte':
      return a === undefined || b === undefined ? null : `before a flipped byte in ${b}${c === undefined ? '' : ` at ${c}`} on ${a}`;
    default:
      return null;
  }
}

/** redis-cli's options that take a value, so the value is not read as the command. */
const VALUE_OPTIONS = new Set(['-h', '-p', '-s', '-a', '-n', '-u', '-r', '-i', '--user', '--pass']);

function isOptionValue(args: string[], w: string): boolean {
  const i = args.indexOf(w);
  return i > 0 && VALUE_OPTIONS.has(args[i - 1]!);
}

/** A command sent to a server that stops it: SHUTDOWN, DEBUG SEGFAULT and the like. */
function commandFault(argv: readonly string[], host: string | null): string | null {
  const name = argv[0]?.toLowerCase();
  const where = host === null ? '' : ` on ${host}`;
  if (name === 'shutdown') return `before SHUTDOWN${where}`;
  const sub = argv[1]?.toLowerCase();
  if (name === 'debug' && (sub === 'segfault' || sub === 'panic' || sub === 'restart' || sub === 'crash-and-recover')) return `before DEBUG ${sub.toUpperCase()}${where}`;
  return null;
}

function killSignal(args: string[]): string {
  const s = args.indexOf('-s');
  const spec = s >= 0 ? args[s + 1] : args.find((w) => /^-[A-Za-z0-9]+$/.test(w))?.slice(1);
  if (spec === undefined) return 'TERM';
  const upper = spec.toUpperCase().replace(/^SIG/, '');
  return upper === '9' ? 'KILL' : upper === '15' ? 'TERM' : upper === '2' ? 'INT' : upper;
}

function processName(world: World, host: string, pid: number): string {
  return world.hosts.get(host)?.process(pid)?.name ?? `process ${pid}`;
}

function serverHost(world: World, sessionId: string): string | null {
  const to = world.sessions.get(sessionId)?.to;
  return to === undefined ? null : to.replace(/:[^:]*$/, '');
}
