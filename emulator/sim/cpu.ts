/**
 * What work costs on a simulated CPU. Costs are given in microseconds on the
 * reference machine of the book's listing 4.10, an Intel Core 2 Duo at
 * 2.4 GHz; a host's `cpuSpeed` divides them (2 = twice as fast).
 *
 * Calibration (Redis in Action, listing 4.10, `redis-benchmark -c 1 -q` over
 * localhost, whose round trip is 0.015 ms with about 4.8 us of loopback
 * stack work per packet each way, see links.ts):
 * - about 30 us per request for PING, SET, GET, INCR, LPUSH...: 15 us of
 *   round trip, 9.6 us of per-packet work, leaving about 5 us for the
 *   server's read, command and write plus the benchmark client's own work;
 * - MSET of 10 keys (21 arguments) costs about 10.5 us more than SET (3
 *   arguments): about 0.6 us per argument;
 * - LRANGE of 100, 300, 450 and 600 elements costs 43.5, 72, 90 and 111 us:
 *   about 0.13 us per element of the reply, shared between the server
 *   (building it) and the client (parsing it).
 */
export interface ServerCpuCosts {
  /** One pass of the event loop that reads a client's socket (read syscall, parsing setup). */
  readonly readUs: number;
  /** Writing one client's pending replies (write syscall). */
  readonly writeUs: number;
  /** Looking a command up, checking it, calling it. */
  readonly commandUs: number;
  /** Each argument: parsing, object creation, the handler's work on it. */
  readonly perArgUs: number;
  /** Each element of an array reply. */
  readonly perReplyItemUs: number;
  /** Each kilobyte of argument or reply data copied. */
  readonly perKbUs: number;
  /** One run of serverCron (active expiry sampling, statistics). */
  readonly cronUs: number;
  /** Accepting a connection and creating its client. */
  readonly acceptUs: number;
}

export const REDIS_CPU: ServerCpuCosts = {
  readUs: 1.3,
  writeUs: 1.3,
  commandUs: 1.0,
  perArgUs: 0.6,
  perReplyItemUs: 0.08,
  perKbUs: 0.25,
  cronUs: 5,
  acceptUs: 6,
};

/**
 * A client program's own costs: a Python-like application client (encoding
 * each command, parsing each reply, its socket calls), or the benchmark tool.
 */
export interface ClientCpuCosts {
  readonly name: string;
  /** Encoding one command and decoding its reply. */
  readonly perCommandUs: number;
  /** Each send-and-receive trip through the client's socket calls. */
  readonly perFlightUs: number;
  /** Each element of an array reply decoded. */
  readonly perReplyItemUs: number;
  /** Opening a connection: creating the socket and connection objects. */
  readonly connectUs: number;
}

/**
 * - python: the book's table 4.4 client (redis-py on the same Core 2 Duo).
 *   The table's rows tie two costs together: per trip (round trip, packet
 *   work, the client's socket calls) and per command (the client encoding
 *   and decoding, the server running it). Local rows, where a trip costs
 *   about 23 us over a Unix socket, run pipelines 1.7x faster than plain
 *   calls; that puts the five commands of update_token near 108 us, about
 *   21.6 us each of which the server's share is about 4.5 us. The remote
 *   row then follows: 271 us trips plus that work gives about 670 plain and
 *   2,600 pipelined calls per second (the book: 739 and 2,841).
 *   Table 4.5: opening a connection per command runs at 25-30% of a
 *   single redis-benchmark client (about 32,000 SETs per second, listing
 *   4.10), so a command with its own connection takes 105-125 us: the
 *   handshake's round trip and packets (25 us), the command's trip and work
 *   (about 50 us), and the client setting up the connection, about 55 us.
 * - benchmark: redis-benchmark's C client, a microsecond per request.
 * - node: an ioredis-like client in a modern process, a few microseconds.
 */
export const CLIENT_CPU = {
  python: { name: 'python', perCommandUs: 17, perFlightUs: 6, perReplyItemUs: 0.5, connectUs: 55 },
  benchmark: { name: 'benchmark', perCommandUs: 1.0, perFlightUs: 0, perReplyItemUs: 0.05, connectUs: 10 },
  node: { name: 'node', perCommandUs: 3, perFlightUs: 2, perReplyItemUs: 0.1, connectUs: 20 },
} as const satisfies Record<string, ClientCpuCosts>;

export type ClientCpuName = keyof typeof CLIENT_CPU;

/** The cost of one command on the server, in reference microseconds. */
export function commandCost(costs: ServerCpuCosts, argv: readonly string[], reply: unknown): number {
  let bytes = 0;
  for (let i = 0; i < argv.length; i++) bytes += argv[i]!.length;
  let us = costs.commandUs + costs.perArgUs * argv.length;
  if (Array.isArray(reply)) {
    us += costs.perReplyItemUs * reply.length;
    for (let i = 0; i < reply.length; i++) {
      const item: unknown = reply[i];
      if (typeof item === 'string') bytes += item.length;
    }
  } else if (typeof reply === 'string') bytes += reply.length;
  if (bytes > 1024) us += costs.perKbUs * (bytes / 1024);
  return us;
}
