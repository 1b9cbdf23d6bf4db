import { type FaultOp, LINK_PROFILES, type LinkProfileName } from '../../../emulator/sim/index.js';
import type { World } from '../../../emulator/world/world.js';
import { loadCommandCode } from '../command-code.js';
import { loadShellParts } from '../shell-loader.js';
import type { WorldHost } from '../world-host.js';
import { installWorkbookPrograms, PROGRAMS, type DiskFault, type ReplicaOf, type StartRedisAgain } from '../world-programs.js';

/**
 * What the cluster panel's buttons do to the world. Each fault is a
 * recorded action of the world (a World method, or one of the workbook's
 * programs), the same path the host shell's `sim` verbs and `kill` take,
 * so checkpoints and replays include it. Faults come in from outside the
 * world, like a line typed: through the store's input().
 *
 *   const outcome = applyFault(store, { kind: 'power-loss', host: 'redis' });
 *   outcome.message   // 'redis: power cut; every process died and what was not on the disk yet is lost'
 */
export type Fault =
  /** kill -9: the process ends at once; its buffers are lost, the page cache stays. */
  | { readonly kind: 'kill'; readonly host: string; readonly pid: number }
  /** kill (SIGTERM): redis-server shuts down as SHUTDOWN does, saving first when save rules are set. */
  | { readonly kind: 'term'; readonly host: string; readonly pid: number }
  | { readonly kind: 'power-loss'; readonly host: string }
  | { readonly kind: 'power-on'; readonly host: string }
  /** Starts redis-server again as it was last started on that port. */
  | { readonly kind: 'start-redis'; readonly host: string; readonly port: number }
  | { readonly kind: 'partition'; readonly a: string; readonly b: string }
  | { readonly kind: 'heal'; readonly a: string; readonly b: string }
  | { readonly kind: 'link-profile'; readonly a: string; readonly b: string; readonly profile: LinkProfileName }
  | { readonly kind: 'disk-full'; readonly host: string; readonly full: boolean }
  /** The next `count` calls of this kind on the host's disk fail with EIO. */
  | { readonly kind: 'disk-error'; readonly host: string; readonly op: FaultOp; readonly count: number }
  /** REPLICAOF sent to the server on host:port, from its own host: follow `primary`, or (null) become a primary again. */
  | { readonly kind: 'replicaof'; readonly host: string; readonly port: number; readonly primary: { readonly host: string; readonly port: number } | null };

export interface FaultOutcome {
  readonly ok: boolean;
  /** What happened, or why the world refused, in a sentence. */
  readonly message: string;
}

/**
 * applyFault, once what the fault needs is loaded: every command's code
 * (a server that starts replays its AOF, which may hold any command), and
 * for starting again a server that a shell started from a command line,
 * the shell's code.
 */
export async function applyFaultWhenReady(target: WorldHost, fault: Fault): Promise<FaultOutcome> {
  // Should the load fail, the fault still happens; a command it leaves without code answers an error.
  await loadCommandCode().catch(() => undefined);
  if (fault.kind === 'start-redis' && target.world.redisLaunches(fault.host).get(fault.port)?.commandLine !== undefined) {
    try {
      await loadShellParts();
    } catch (e) {
      return { ok: false, message: `${faultLabel(fault)}: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  return applyFault(target, fault);
}

/** Runs a fault as outside input to the world. Never throws: a refusal is an outcome. */
export function applyFault(target: WorldHost, fault: Fault): FaultOutcome {
  try {
    target.input(() => run(target.world, fault));
    // A daemon that cannot bind its port, or dies loading its files, says so in its log only.
    if (fault.kind === 'start-redis' && target.world.redis(fault.host, fault.port) === undefined) {
      return { ok: false, message: `${fault.host}: redis-server on port ${fault.port} exited at once; its log says why (sim trace in a shell)` };
    }
    return { ok: true, message: doneText(fault) };
  } catch (e) {
    return { ok: false, message: `${faultLabel(fault)}: ${e instanceof Error ? e.message : String(e)}` };
  }
}

function run(world: World, f: Fault): void {
  installWorkbookPrograms(world);
  switch (f.kind) {
    case 'kill':
      return world.signal(f.host, f.pid, 'KILL');
    case 'term':
      return world.signal(f.host, f.pid, 'TERM');
    case 'power-loss':
      return world.powerOff(f.host);
    case 'power-on':
      return world.powerOn(f.host);
    case 'start-redis': {
      const args: StartRedisAgain = { host: f.host, port: f.port };
      world.apply({ kind: 'program', name: PROGRAMS.startRedis, args });
      return;
    }
    case 'partition':
      return world.partition(f.a, f.b);
    case 'heal':
      return world.heal(f.a, f.b);
    case 'link-profile':
      if (!(f.profile in LINK_PROFILES)) throw new Error(`unknown link profile ${f.profile}`);
      return world.link(f.a, f.b, f.profile);
    case 'disk-full': {
      const args: DiskFault = { host: f.host, full: f.full };
      world.apply({ kind: 'program', name: PROGRAMS.diskFault, args });
      return;
    }
    case 'disk-error': {
      const args: DiskFault = { host: f.host, fail: f.op, count: f.count };
      world.apply({ kind: 'program', name: PROGRAMS.diskFault, args });
      return;
    }
    case 'replicaof': {
      const args: ReplicaOf = { host: f.host, port: f.port, primary: f.primary };
      world.apply({ kind: 'program', name: PROGRAMS.replicaof, args });
      return;
    }
  }
}

/**
 * The accessible name of a fault's button whose face shows a short word: the
 * word first, then the sentence, so that what the eye reads is part of the
 * name (a voice control user says "Power loss") and a screen reader still
 * hears what it does, to what.
 */
export function faultButtonName(face: string, f: Fault): string {
  const label = faultLabel(f);
  return label.toLowerCase().includes(face.toLowerCase()) ? label : `${face}: ${label}`;
}

/** The accessible name of a fault's button: what it does, to what, in words. */
export function faultLabel(f: Fault): string {
  switch (f.kind) {
    case 'kill':
      return `Kill redis-server (pid ${f.pid}) on ${f.host} with SIGKILL, as kill -9 does`;
    case 'term':
      return `Stop redis-server (pid ${f.pid}) on ${f.host} with SIGTERM: a graceful shutdown`;
    case 'power-loss':
      return `Cut the power of ${f.host}`;
    case 'power-on':
      return `Power ${f.host} on again`;
    case 'start-redis':
      return `Start redis-server on ${f.host} port ${f.port} again, as it was last started`;
    case 'partition':
      return `Cut the network between ${f.a} and ${f.b}`;
    case 'heal':
      return `Heal the network between ${f.a} and ${f.b}`;
    case 'link-profile':
      return `Make the link between ${f.a} and ${f.b} a ${f.profile} link`;
    case 'disk-full':
      return f.full ? `Fill the disk of ${f.host}: writes that need space fail with ENOSPC` : `Give the disk of ${f.host} free space again`;
    case 'disk-error':
      return `Make the next ${f.op} call on the disk of ${f.host} fail with EIO`;
    case 'replicaof':
      return f.primary === null
        ? `Make redis-server on ${f.host}:${f.port} a primary again (REPLICAOF NO ONE)`
        : `Make redis-server on ${f.host}:${f.port} a replica of ${f.primary.host}:${f.primary.port} (REPLICAOF)`;
  }
}

function doneText(f: Fault): string {
  switch (f.kind) {
    case 'kill':
      return `${f.host}: redis-server (pid ${f.pid}) killed; what it had not written is lost, the page cache stays`;
    case 'term':
      return `${f.host}: SIGTERM sent to redis-server (pid ${f.pid}); it shuts down as SHUTDOWN does`;
    case 'power-loss':
      return `${f.host}: power cut; every process died and what was not on the disk yet is lost`;
    case 'power-on':
      return `${f.host}: booted; nothing runs until you start it`;
    case 'start-redis':
      return `${f.host}: redis-server started on port ${f.port}`;
    case 'partition':
      return `network cut between ${f.a} and ${f.b}`;
    case 'heal':
      return `network between ${f.a} and ${f.b} healed`;
    case 'link-profile':
      return `${f.a} <-> ${f.b}: now a ${f.profile} link`;
    case 'disk-full':
      return f.full ? `${f.host}: disk full (writes that need space fail with ENOSPC)` : `${f.host}: disk has space again`;
    case 'disk-error':
      return `${f.host}: the next ${f.count === 1 ? f.op : `${f.count} ${f.op}`} call${f.count === 1 ? '' : 's'} will fail with EIO`;
    case 'replicaof':
      return f.primary === null
        ? `${f.host}:${f.port}: REPLICAOF NO ONE sent; it becomes a primary, its old history kept as replid2`
        : `${f.host}:${f.port}: REPLICAOF ${f.primary.host} ${f.primary.port} sent; the handshake and sync follow`;
  }
}
