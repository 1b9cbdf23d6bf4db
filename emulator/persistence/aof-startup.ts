import { bytesFromArray } from '../resp/bytes.js';
import {
  emptyManifest,
  formatManifest,
  isManifestError,
  manifestErrorLog,
  manifestFileName,
  parseManifest,
  withNewBase,
  withNewIncr,
  type AofManifest,
} from './aof/manifest.js';
import { errorText, type AofDir, type AofProcess } from './aof-dir.js';
import { baseFileBytes, notRewritableLine } from './aof-rewrite-child.js';
import { NotRewritable } from './aof/rewrite.js';

/**
 * What redis-server's main() does with the AOF before it serves
 * (src/server.c, src/aof.c): read the manifest, move an old single-file AOF
 * into the directory, and, with appendonly yes, open the AOF for appending.
 *
 * The decisions and the log lines happen at once, in Redis's order; the
 * file work that must be durable is returned as steps that run one after
 * another with the thread held, each calling `next` when its disk work
 * is done. A failure there ends the process, as Redis's exit(1) does.
 */

export type FileStep = (next: () => void) => void;

/** Runs steps one after the other. */
export function runSteps(steps: readonly FileStep[]): void {
  const run = (i: number): void => {
    if (i < steps.length) steps[i]!(() => run(i + 1));
  };
  run(0);
}

/** aofLoadManifestFromDisk: the manifest, an empty one when there is none, or the line to exit with. */
export function readManifestAtStart(p: AofProcess, files: AofDir): AofManifest | string {
  if (!files.dirExists()) return emptyManifest();
  const name = manifestFileName(files.appendFilename);
  const path = files.path(name);
  if (!files.exists(path)) return emptyManifest();
  let text: string;
  try {
    text = bytesFromArray(files.disk.readFile(path));
  } catch (e) {
    return `Fatal error: can't open the AOF manifest file ${files.logPath(name)} for reading: ${errorText(e)}`;
  }
  const m = parseManifest(text);
  if (!isManifestError(m)) return m;
  const lines = manifestErrorLog(m);
  for (const l of lines.slice(0, -1)) p.log(l);
  return lines[lines.length - 1]!;
}

/**
 * loadAppendOnlyFiles' upgrade from an older Redis's single appendonly.aof
 * in `dir` (aofUpgradePrepare): it becomes the base of a new manifest and
 * moves into the directory. It is loaded from where it is (`from`); the
 * move follows the manifest's sync. Null when there is nothing to upgrade.
 */
export function prepareUpgrade(
  p: AofProcess,
  files: AofDir,
  m: AofManifest,
  steps: FileStep[],
  die: () => void,
): { manifest: AofManifest; from: string } | string | null {
  const name = files.appendFilename;
  const old = files.workPath(name);
  const noFiles = m.base === null && m.incr.length === 0;
  const onlyOldBase = m.base !== null && m.incr.length === 0 && m.base.name === name && !files.exists(files.path(name));
  if (!files.exists(old) || !(!files.dirExists() || noFiles || onlyOldBase)) return null;
  const dirErr = files.createDir();
  if (dirErr !== null) return `Can't open or create append-only dir ${files.dirName}: ${dirErr}`;
  const manifest: AofManifest = { ...m, base: { name, seq: 1, type: 'b' }, baseSeq: 1 };
  const text = formatManifest(manifest);
  steps.push((next) =>
    files.writeManifest(text, (ok) => {
      if (!ok) return die();
      try {
        files.disk.rename(old, files.path(name));
      } catch (e) {
        p.log(`Error trying to move the old AOF file ${name} into dir ${files.dirName}: ${errorText(e)}`, 'warning');
        return die();
      }
      next();
    }),
  );
  p.log(`Successfully migrated an old-style AOF file (${name}) into the AOF directory (${files.dirName}).`);
  return { manifest, from: old };
}

/**
 * aofOpenIfNeededOnServerStart: with nothing loaded, a base of the (empty)
 * dataset is written first; then the last incremental file is opened for
 * appending, or a new one created, and the manifest saved when it changed.
 * Returns the manifest, the open file and its size, or the line to exit with.
 */
export function openAtStart(
  p: AofProcess,
  files: AofDir,
  loaded: AofManifest,
  steps: FileStep[],
  die: () => void,
): { manifest: AofManifest; fd: number; incrSize: number } | string {
  const disk = files.disk;
  const dirErr = files.createDir();
  if (dirErr !== null) return `Can't open or create append-only dir ${files.dirName}: ${dirErr}`;
  let m = loaded;
  let dirty = false;
  if (m.base === null && m.incr.length === 0) {
    const base = withNewBase(m, files.appendFilename, p.server.config.getBool('aof-use-rdb-preamble'));
    m = base.manifest;
    dirty = true;
    // rewriteAppendOnlyFile: a temp file of the server's own pid, synced, then renamed.
    const tmp = files.workPath(`temp-rewriteaof-${p.pid}.aof`);
    let fd: number;
    try {
      fd = disk.open(tmp, 'w', p.pid);
    } catch (e) {
      return `Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): ${errorText(e)}`;
    }
    const bytes = baseFileBytes(p.server, p.nowUs());
    if (bytes instanceof NotRewritable) {
      files.closeQuietly(fd);
      files.unlinkQuietly(tmp);
      return notRewritableLine(bytes);
    }
    const w = files.writeAll(fd, bytes);
    if (w.error !== null) {
      files.closeQuietly(fd);
      files.unlinkQuietly(tmp);
      return `Write error writing append only file on disk: ${w.error}`;
    }
    const basePath = files.path(base.name);
    steps.push((next) =>
      files.fsyncHeld(fd, (err) => {
        files.closeQuietly(fd);
        if (err !== null) {
          p.log(`Write error writing append only file on disk: ${err}`, 'warning');
          files.unlinkQuietly(tmp);
          return die();
        }
        try {
          disk.rename(tmp, basePath);
        } catch (e) {
          p.log(`Error moving temp append only file on the final destination: ${errorText(e)}`, 'warning');
          files.unlinkQuietly(tmp);
          return die();
        }
        next();
      }),
    );
    p.log(`Creating AOF base file ${base.name} on server start`);
  }
  const reopen = m.incr.length !== 0;
  let incrName: string;
  if (reopen) {
    incrName = m.incr[m.incr.length - 1]!.name;
  } else {
    const incr = withNewIncr(m, files.appendFilename);
    m = incr.manifest;
    incrName = incr.name;
    dirty = true;
  }
  let fd: number;
  try {
    fd = disk.open(files.path(incrName), 'a', p.pid);
  } catch (e) {
    return `Can't open the append-only file ${incrName}: ${errorText(e)}`;
  }
  if (dirty) {
    const text = formatManifest(m);
    steps.push((next) => files.writeManifest(text, (ok) => (ok ? next() : die())));
  }
  p.log(reopen ? `Opening AOF incr file ${incrName} on server start` : `Creating AOF incr file ${incrName} on server start`);
  return { manifest: m, fd, incrSize: files.size(files.path(incrName)) ?? 0 };
}
