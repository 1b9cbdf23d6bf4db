import { bytesToArray } from '../resp/bytes.js';
import { usedMemory } from '../server/info.js';
import type { RedisServer } from '../server/server.js';
import { SimProcess, type Host } from '../sim/host.js';
import { NotRewritable, rewriteAof } from './aof/rewrite.js';
import { tempRewriteFileName } from './aof/manifest.js';
import { errorText, type AofDir, type AofProcess } from './aof-dir.js';
import { keySaveDelayUs, saveRdb, snapshotDatabases } from './rdb-dataset.js';

/**
 * The child a background AOF rewrite forks (rewriteAppendOnlyFileBackground
 * and rewriteAppendOnlyFile in src/aof.c): it writes the dataset as it was
 * at the fork to temp-rewriteaof-<pid>.aof in `dir`, syncs it, renames it
 * to temp-rewriteaof-bg-<pid>.aof and exits; the parent notices the exit
 * in serverCron and makes the file the new base.
 */

/** Reference microseconds of CPU to serialize a kilobyte (as snapshots.ts). */
const SAVE_US_PER_KB = 4;
/** Fork work that does not depend on memory (as snapshots.ts). */
const FORK_BASE_US = 150;

export class AofRewriteChild extends SimProcess {
  constructor(host: Host, port: number) {
    super(host, 'redis-aof-rewrite', ['redis-aof-rewrite', `*:${port}`]);
  }
}

/**
 * What a base file holds: an RDB with the aof-base aux field when
 * aof-use-rdb-preamble is yes, else the commands that rebuild the dataset.
 */
export function baseFileBytes(server: RedisServer, nowUs: number): Uint8Array | NotRewritable {
  const cfg = server.config;
  const nowS = Math.floor(nowUs / 1e6);
  // No replication fields in a base (rewriteAppendOnlyFile saves with no rdbSaveInfo).
  if (cfg.getBool('aof-use-rdb-preamble')) return saveRdb(server, { ctimeSeconds: nowS, aofBase: true, replication: null });
  const functions = server.functions.codes();
  const timestamps = cfg.getBool('aof-timestamp-enabled');
  const text = rewriteAof(snapshotDatabases(server), timestamps ? { timestampSeconds: nowS, functions } : { functions });
  return typeof text === 'string' ? bytesToArray(text) : text;
}

/** The log line of a rewrite that would lose a key: the old files stay as they are. */
export function notRewritableLine(n: NotRewritable): string {
  return `Can't rewrite the append only file as commands: key '${n.key}' in DB ${n.dbId} holds a stream, kept as stored but with no commands to rebuild it here (aof-use-rdb-preamble yes writes it)`;
}

/** Fork: the parent's thread stops while its page tables are copied, longer the more memory it has. */
export function forkCostUs(server: RedisServer, host: Host): number {
  const gb = usedMemory(server) / 2 ** 30;
  return Math.round(FORK_BASE_US + gb * host.profile.forkMsPerGb * 1000);
}

/**
 * Forks the rewrite child: charges the fork to the parent, serializes the
 * dataset at this instant, and lets the child write it over virtual time.
 * Returns the child; its exit code says how it went.
 */
export function forkRewriteChild(p: AofProcess, files: AofDir): AofRewriteChild {
  const server = p.server;
  const forkUs = forkCostUs(server, p.host);
  p.stall(forkUs);
  server.recordFork(forkUs);
  const bytes = baseFileBytes(server, p.nowUs());
  const host = p.host;
  const child = host.spawn(new AofRewriteChild(host, server.port));
  const kernel = host.kernel;
  if (bytes instanceof NotRewritable) {
    kernel.at(Math.max(kernel.now, p.nowUs()), () => {
      if (!child.alive) return;
      p.log(notRewritableLine(bytes), 'warning');
      child.exit(1);
    });
    return child;
  }
  const cpuUs = ((bytes.length / 1024) * SAVE_US_PER_KB) / host.profile.cpuSpeed;
  let keys = 0;
  for (const db of server.dbs) keys += db.size;
  const delayUs = keySaveDelayUs(keys, server.config.getNumber('rdb-key-save-delay'));
  kernel.at(Math.max(kernel.now, p.nowUs()) + Math.round(cpuUs) + delayUs, () => writeBase(p, files, child, bytes));
  return child;
}

/** The child's work: write, fflush, fsync, close, rename; exit 0 on success. */
function writeBase(p: AofProcess, files: AofDir, child: AofRewriteChild, bytes: Uint8Array): void {
  if (!child.alive) return;
  const disk = files.disk;
  const tmp = files.workPath(`temp-rewriteaof-${child.pid}.aof`);
  const bgName = tempRewriteFileName(child.pid);
  let fd: number;
  try {
    fd = disk.open(tmp, 'w', child.pid);
  } catch (e) {
    p.log(`Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): ${errorText(e)}`, 'warning');
    child.exit(1);
    return;
  }
  const fail = (why: string): void => {
    p.log(`Write error writing append only file on disk: ${why}`, 'warning');
    files.closeQuietly(fd);
    files.unlinkQuietly(tmp);
    child.exit(1);
  };
  const w = files.writeAll(fd, bytes);
  if (w.error !== null) {
    fail(w.error);
    return;
  }
  try {
    disk.fsync(fd, (err) => {
      if (!child.alive) return;
      if (err !== null) {
        fail(err.message);
        return;
      }
      files.closeQuietly(fd);
      try {
        disk.rename(tmp, files.workPath(bgName));
      } catch (e) {
        p.log(`Error moving temp append only file on the final destination: ${errorText(e)}`, 'warning');
        files.unlinkQuietly(tmp);
        child.exit(1);
        return;
      }
      p.log(`Successfully created the temporary AOF base file ${bgName}`);
      child.exit(0);
    });
  } catch (e) {
    fail(errorText(e));
  }
}
