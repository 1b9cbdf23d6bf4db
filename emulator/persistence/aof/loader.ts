import type { AofManifest } from './manifest.js';
import { loadAofFile, type AofLogEntry, type AofOpenFailure, type AofReplayTarget } from './reader.js';

/**
 * Loading every file a manifest names, base first, as Redis 7.0 does at
 * startup (loadAppendOnlyFiles in src/aof.c, without the upgrade from an
 * old single-file AOF): all files must exist, only the last may be
 * truncated, an empty incremental file is fine.
 *
 *   const r = loadAofFiles(manifest, (name) => readFromDir(name), { loadTruncated: true }, targetFor);
 *   if (r.status === 'failed' || r.status === 'open-error') exit(1);   // what loadDataFromDisk does
 */

export type AofFilesStatus = 'ok' | 'truncated' | 'empty' | 'not-exist' | 'open-error' | 'failed';

export interface AofFilesResult {
  status: AofFilesStatus;
  log: AofLogEntry[];
  /** Sum of the sizes of the base and incremental files (aof_current_size). */
  totalBytes: number;
  /** Size of the base file (aof_rewrite_base_size after a restart). */
  baseBytes: number;
}

export interface AofFilesOptions {
  loadTruncated: boolean;
  /** Seconds a file took to load, for the "DB loaded from ..." lines; 0 when not given. */
  secondsSpent?: (name: string) => number;
  /**
   * appendfilename: a file of exactly that name is an old single-file AOF
   * being upgraded, whose RDB preamble Redis announces differently.
   */
  oldStyleName?: string;
}

/**
 * `open(name)` gives a file's bytes or why it cannot be opened; `targetFor(name)`
 * the replay target for it (its truncate acts on that file).
 */
export function loadAofFiles(
  manifest: AofManifest,
  open: (name: string) => Uint8Array | AofOpenFailure,
  opts: AofFilesOptions,
  targetFor: (name: string) => AofReplayTarget,
): AofFilesResult {
  const log: AofLogEntry[] = [];
  const files = manifest.base ? [manifest.base, ...manifest.incr] : [...manifest.incr];
  const out = (status: AofFilesStatus, totalBytes = 0, baseBytes = 0): AofFilesResult => ({ status, log, totalBytes, baseBytes });
  if (files.length === 0) return out('not-exist');

  // Every file is measured first; a missing one is fatal before anything loads.
  const contents = new Map<string, Uint8Array>();
  let total = 0;
  for (const f of files) {
    const c = open(f.name);
    if (!(c instanceof Uint8Array)) {
      log.push({ level: 'warning', text: `Unable to obtain the AOF file ${f.name} length. stat: ${c.error}` });
      return out(c.missing ? 'failed' : 'open-error');
    }
    contents.set(f.name, c);
    total += c.length;
  }
  if (total === 0) return out('empty');
  const baseBytes = manifest.base ? contents.get(manifest.base.name)!.length : 0;

  let status: AofFilesStatus = 'ok';
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    const isBase = f === manifest.base;
    const last = i === files.length - 1;
    const r = loadAofFile(f.name, contents.get(f.name)!, { loadTruncated: opts.loadTruncated, oldStyle: f.name === opts.oldStyleName }, targetFor(f.name));
    log.push(...r.log);
    status = r.status;
    if (status === 'ok' || (status === 'truncated' && last)) {
      const seconds = (opts.secondsSpent?.(f.name) ?? 0).toFixed(3);
      log.push({ level: 'notice', text: `DB loaded from ${isBase ? 'base' : 'incr'} file ${f.name}: ${seconds} seconds` });
    }
    if (!isBase && status === 'empty') status = 'ok';
    if (status === 'truncated' && !last) {
      status = 'failed';
      log.push({ level: 'warning', text: 'Fatal error: the truncated file is not the last file' });
    }
    if (status === 'open-error' || status === 'failed') return out(status);
  }
  return out(status, total, baseBytes);
}
