import { MapReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { logRows } from '../numbers/latency-histogram.js';
import { helpReply } from './command-help.js';
import type { CommandDef, Handler } from '../server/command-table.js';

/**
 * LATENCY LATEST, HISTORY, RESET, HISTOGRAM and HELP (src/latency.c). The
 * samples are kept by server/latency-monitor.ts, fed by call() (slow
 * commands), forks and the AOF's fsyncs; DOCTOR and GRAPH, which turn
 * them into text, are in latency-report.ts.
 */

/** LATENCY LATEST: per event, its latest sample's time and latency, and the worst ever. */
function latencyLatest(c: Client): Reply {
  const out: Reply[] = [];
  for (const [event, ts] of c.server.latency.events) {
    const last = ts.last;
    out.push([event, last.timeS, last.latencyMs, ts.maxMs]);
  }
  return out;
}

/** LATENCY HISTORY event: the event's samples, oldest first, as [time, latency] pairs. */
function latencyHistory(c: Client, argv: string[]): Reply {
  const ts = c.server.latency.events.get(argv[2]!);
  if (ts === undefined) return [];
  return ts.inOrder().map((s) => [s.timeS, s.latencyMs]);
}

/** LATENCY RESET [event ...]: forgets the named events (any case), or all; answers how many. */
function latencyReset(c: Client, argv: string[]): Reply {
  const monitor = c.server.latency;
  if (argv.length === 2) return monitor.reset();
  let n = 0;
  for (let j = 2; j < argv.length; j++) n += monitor.reset(argv[j]!);
  return n;
}

/**
 * LATENCY HISTOGRAM [command ...]: for each command with recorded runs,
 * its number of calls and the cumulative count of runs up to each
 * power-of-two bucket of microseconds (fillCommandCDF). Without names,
 * every command; with names, those named (a container brings its
 * subcommands), unknown names skipped.
 */
function latencyHistogram(c: Client, argv: string[]): Reply {
  const flat: Reply[] = [];
  const add = (cmd: CommandDef): void => {
    if (cmd.latencyHistogram !== null) flat.push(cmd.name, commandCdf(cmd));
  };
  const table = c.server.commands;
  if (argv.length === 2) {
    for (const cmd of table.all()) add(cmd);
  } else {
    for (let j = 2; j < argv.length; j++) {
      const cmd = table.byFullName(argv[j]!);
      if (cmd === undefined) continue;
      add(cmd);
      if (cmd.subcommands !== null) for (const sub of cmd.subcommands.values()) add(sub);
    }
  }
  return new MapReply(flat);
}

/** One command's calls and histogram_usec map, buckets from 1 us doubling, only those that add runs. */
function commandCdf(cmd: CommandDef): Reply {
  const h = cmd.latencyHistogram!;
  const buckets: Reply[] = [];
  let previous = 0;
  for (const row of logRows(h, 1024, 2)) {
    if (row.cumulative > previous) buckets.push(Math.floor(row.value / 1000), row.cumulative);
    previous = row.cumulative;
  }
  return new MapReply(['calls', h.totalCount, 'histogram_usec', new MapReply(buckets)]);
}

function latencyHelp(_c: Client, argv: string[]): Reply {
  return helpReply(argv[0]!, [
    'DOCTOR',
    '    Read the latency samples and say, in words, what they suggest.',
    'GRAPH <event>',
    '    Draw the samples of <event> as a text graph.',
    'HISTORY <event>',
    '    List the samples of <event>: the Unix time of each and its latency in milliseconds.',
    'LATEST',
    '    For each event: its latest sample and the worst latency ever seen.',
    'RESET [<event> ...]',
    '    Forget the samples of the named events, or of all events when none is named.',
    'HISTOGRAM [COMMAND ...]',
    '    How long runs of the named commands took, as cumulative counts per bucket of',
    '    microseconds; every command that has run when none is named.',
  ]);
}

export const latencyCommands: Record<string, Handler> = {
  'latency|latest': latencyLatest,
  'latency|history': latencyHistory,
  'latency|reset': latencyReset,
  'latency|histogram': latencyHistogram,
  'latency|help': latencyHelp,
};

/** LATENCY HISTORY and GRAPH look events up by exact name; a missing one is this error. */
export function noSamplesError(event: string): Reply {
  return errorReply(`No samples available for event '${event}'`);
}
