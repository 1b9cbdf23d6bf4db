import { SHELL_PROGRAM, decodeBase64, normalizePath } from '../../emulator/programs/recorded-actions.js';
import type { FaultOp } from '../../emulator/sim/index.js';
import type { RecordedAction, World } from '../../emulator/world/world.js';
import { requireShellParts } from './shell-loader.js';
import { encodeCommand } from '../../emulator/resp/index.js';

/**
 * What the workbook's panels do to a world beyond the World's own methods,
 * as programs of its action log: uploading a file into a host, filling or
 * failing a disk, starting a redis-server again as it was last started.
 * Being recorded actions, they are part of every checkpoint and replay to
 * the same state. Every world the page hosts needs them before its first
 * action is replayed: the sandbox (world-setup.ts), a lesson's world, a
 * world restored from a checkpoint (World.restore's setup). Starting a
 * server again from a shell's command line needs the shell's code loaded
 * (loadShellParts) before the action is applied or replayed.
 *
 *   await loadShellParts();
 *   const world = World.restore(checkpoint, (w) => { registerShellProgram(w); installWorkbookPrograms(w); });
 */
export const PROGRAMS = {
  upload: 'workbook-upload-file',
  diskFault: 'workbook-disk-fault',
  startRedis: 'workbook-start-redis',
  replicaof: 'workbook-replicaof',
} as const;

/** A piece of a file being uploaded; pieces arrive in order, the first at offset 0. */
export interface UploadChunk {
  readonly host: string;
  /** Absolute path on the host. */
  readonly path: string;
  readonly offset: number;
  /** The piece's bytes, base64. */
  readonly data: string;
  /** The last piece: the file is complete and is synced to the disk. */
  readonly last: boolean;
}

export type DiskFault = { readonly host: string; readonly full: boolean } | { readonly host: string; readonly fail: FaultOp; readonly count: number };

export interface StartRedisAgain {
  readonly host: string;
  readonly port: number;
}

/** REPLICAOF for the server on host:port: follow `primary`, or (null) NO ONE. */
export interface ReplicaOf {
  readonly host: string;
  readonly port: number;
  readonly primary: { readonly host: string; readonly port: number } | null;
}

const installed = new WeakSet<World>();

/** Registers the workbook's programs on a world; calling it again does nothing. */
export function installWorkbookPrograms(world: World): void {
  if (installed.has(world)) return;
  installed.add(world);
  world.registerProgram(PROGRAMS.upload, (w, args) => upload(w, args as UploadChunk));
  world.registerProgram(PROGRAMS.diskFault, (w, args) => diskFault(w, args as DiskFault));
  world.registerProgram(PROGRAMS.startRedis, (w, args) => startAgain(w, args as StartRedisAgain));
  world.registerProgram(PROGRAMS.replicaof, (w, args) => replicaof(w, args as ReplicaOf));
}

/**
 * Whether replaying these actions needs the host shell's code (load it
 * first with loadShellParts): a shell's own actions, or a server started
 * again from the redis-server command line a shell gave it.
 */
export function replayNeedsShell(actions: readonly RecordedAction[]): boolean {
  return actions.some((r) => r.action.kind === 'program' && (r.action.name === SHELL_PROGRAM || r.action.name === PROGRAMS.startRedis));
}

function upload(world: World, c: UploadChunk): void {
  const host = world.host(c.host);
  if (!host.powered) throw new Error(`${c.host} is powered off`);
  const path = c.path.startsWith('/') ? normalizePath(c.path) : '/';
  if (path === '/') throw new Error(`not an absolute file path: ${c.path}`);
  const disk = host.disk;
  const bytes = decodeBase64(c.data);
  if (c.offset === 0) {
    disk.mkdir(path.slice(0, path.lastIndexOf('/')) || '/', { recursive: true });
    disk.writeFile(path, bytes);
  } else {
    const size = disk.stat(path).size;
    if (size !== c.offset) throw new Error(`${path} has ${size} bytes, the next piece starts at ${c.offset}`);
    disk.appendFile(path, bytes);
  }
  if (!c.last) return;
  const size = disk.stat(path).size;
  world.trace.add(c.host, 'upload', `${path} ${size} bytes`);
  // An uploaded file is complete and synced, like a file copied in and flushed.
  const fd = disk.open(path, 'r');
  disk.fsync(fd, () => disk.close(fd));
}

function diskFault(world: World, f: DiskFault): void {
  const disk = world.host(f.host).disk;
  if ('full' in f) disk.setFull(f.full);
  else disk.failNext(f.fail, f.count);
}

/**
 * REPLICAOF as redis-cli on the server's own host would send it: over a
 * loopback connection, which closes once the reply is in.
 */
function replicaof(world: World, r: ReplicaOf): void {
  if (world.redis(r.host, r.port) === undefined) throw new Error(`no redis-server runs on ${r.host}:${r.port}`);
  const argv = r.primary === null ? ['REPLICAOF', 'NO', 'ONE'] : ['REPLICAOF', r.primary.host, String(r.primary.port)];
  const socket = world.network.connect(world.host(r.host), r.host, r.port);
  socket.onConnect = () => socket.write(encodeCommand(argv));
  socket.onData = () => socket.end();
}

function startAgain(world: World, s: StartRedisAgain): void {
  const launch = world.redisLaunches(s.host).get(s.port);
  if (launch === undefined) throw new Error(`redis-server was never started on ${s.host}:${s.port}`);
  if (launch.commandLine === undefined) {
    world.startRedis(s.host, launch);
    return;
  }
  const error = requireShellParts().startRedisFromCommandLine(world, s.host, launch.commandLine.args, launch.commandLine.cwd);
  if (error !== null) throw new Error(error.trim());
}
