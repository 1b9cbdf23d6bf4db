import type { TraceEntry } from '../../emulator/sim/trace.js';
import { happeningWords } from './happenings.js';
import { parseServerRef, type Check } from './schema.js';

/**
 * Which entries of the world's trace count for a time-relative check
 * (happened, ran, command, trace), or null for a check on the world's
 * state. The step watch counts them as they come; a check evaluated
 * without one scans the trace instead.
 */
export function traceMatcher(c: Check): ((e: TraceEntry) => boolean) | null {
  if ('after' in c && c.after !== undefined) {
    const host = checkHost(c);
    const words = happeningWords(c.after);
    return (e) => e.source === host && words.matches(e);
  }
  switch (c.kind) {
    case 'happened': {
      const host = parseServerRef(c.on).host;
      const words = happeningWords(c.happened);
      return (e) => e.source === host && words.matches(e);
    }
    case 'ran': {
      const args = c.args === undefined ? [] : c.args.trim().split(/\s+/);
      return (e) => {
        if (e.kind !== 'spawn' || e.source !== c.on) return false;
        // "1007 redis-check-aof --fix /var/lib/...": the pid, then the command line.
        const words = e.text.split(' ').slice(1);
        if (programName(words[0] ?? '') !== c.ran) return false;
        return args.every((a) => words.slice(1).includes(a));
      };
    }
    case 'command': {
      const host = parseServerRef(c.on).host;
      const want = c.command.trim().split(/\s+/).map((w) => w.toLowerCase());
      return (e) => {
        if (e.kind !== 'cmd' || e.source !== host) return false;
        const argv = traceArgv(e.text);
        if (argv === null || argv.length < want.length) return false;
        return want.every((w, i) => argv[i]!.toLowerCase() === w);
      };
    }
    case 'trace': {
      const re = c.text === undefined ? null : new RegExp(c.text);
      return (e) => e.kind === c.trace && (c.source === undefined || e.source === c.source) && (re === null || re.test(e.text));
    }
    default:
      return null;
  }
}

/** The host a check on the world's state looks at. */
export function checkHost(c: Check): string {
  switch (c.kind) {
    case 'key':
    case 'info':
    case 'config':
    case 'happened':
    case 'command':
      return parseServerRef(c.on).host;
    case 'dbsize':
      return parseServerRef(c.dbsize).host;
    case 'server':
      return parseServerRef(c.server).host;
    case 'file':
    case 'ran':
      return c.on;
    case 'host':
      return c.host;
    default:
      return '';
  }
}

/** "/usr/bin/redis-check-aof" or "redis-check-aof": the program's name. */
function programName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/**
 * The arguments of a command as the trace records it: the client's id,
 * then each argument as a JSON string ("12 \"INCR\" \"votes\""), long ones
 * cut and many elided; null when it cannot be read.
 */
export function traceArgv(text: string): string[] | null {
  const space = text.indexOf(' ');
  if (space < 0) return null;
  const out: string[] = [];
  const re = /"(?:[^"\\]|\\.)*"/g;
  const rest = text.slice(space + 1);
  for (let m = re.exec(rest); m !== null; m = re.exec(rest)) {
    try {
      out.push(JSON.parse(m[0]) as string);
    } catch {
      return null;
    }
  }
  return out;
}

/** Counts the entries since `sinceUs` that a check's matcher accepts (for a check evaluated without a step watch). */
export function scanTrace(entries: readonly TraceEntry[], match: (e: TraceEntry) => boolean, sinceUs: number): number[] {
  const times: number[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.t < sinceUs) break;
    if (match(e)) times.push(e.t);
  }
  return times.reverse();
}
