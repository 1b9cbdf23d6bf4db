import { encodeBase64, normalizePath } from '../../../emulator/sim/index.js';
import type { WorldHost } from '../world-host.js';
import { installWorkbookPrograms, PROGRAMS, type UploadChunk } from '../world-programs.js';

/**
 * Puts files from the learner's machine into a host: a real dump.rdb, or a
 * whole appendonlydir picked as a folder. Each file goes in as recorded
 * actions of the world (the workbook's upload program), one piece at a
 * time with the page free between pieces, so a checkpoint replays the
 * upload and a large file never holds the page for long.
 *
 *   const plan = planUpload('/var/lib/redis', [{ relativePath: 'dump.rdb', bytes }]);
 *   if ('files' in plan) await uploadFiles(store, 'redis', plan.files);
 */
export interface UploadSource {
  /** The name as the browser gives it: "dump.rdb", or "appendonlydir/appendonly.aof.1.incr.aof" for a folder. */
  readonly relativePath: string;
  readonly bytes: Uint8Array;
}

export interface PlannedFile {
  /** Absolute path on the host, a byte string (UTF-8). */
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** Bytes per recorded piece: small enough to encode and apply well within a frame's budget. */
export const UPLOAD_CHUNK_BYTES = 256 * 1024;

/** Where each file goes under `dir`, or why the names cannot be used. */
export function planUpload(dir: string, sources: readonly UploadSource[]): { files: PlannedFile[] } | { error: string } {
  if (!dir.startsWith('/')) return { error: `the directory must be an absolute path, like /var/lib/redis (not ${JSON.stringify(dir)})` };
  if (sources.length === 0) return { error: 'no file chosen' };
  const base = normalizePath(utf8Bytes(dir));
  const files: PlannedFile[] = [];
  const seen = new Set<string>();
  for (const s of sources) {
    const parts = s.relativePath.split(/[\\/]/).filter((p) => p !== '');
    if (parts.length === 0 || parts.some((p) => p === '.' || p === '..' || p.includes('\0'))) return { error: `cannot use the name ${JSON.stringify(s.relativePath)}` };
    const path = (base === '/' ? '' : base) + '/' + parts.map(utf8Bytes).join('/');
    if (seen.has(path)) return { error: `two files would both be ${JSON.stringify(s.relativePath)}` };
    seen.add(path);
    files.push({ path, bytes: s.bytes });
  }
  return { files };
}

export interface UploadOptions {
  chunkBytes?: number;
  /** Lets the page breathe between pieces; by default a new task. */
  pause?: () => Promise<void>;
  onProgress?: (doneBytes: number, totalBytes: number) => void;
}

export type UploadOutcome = { readonly ok: true; readonly files: number; readonly bytes: number } | { readonly ok: false; readonly message: string };

export async function uploadFiles(target: WorldHost, host: string, files: readonly PlannedFile[], opts: UploadOptions = {}): Promise<UploadOutcome> {
  const chunk = opts.chunkBytes ?? UPLOAD_CHUNK_BYTES;
  const pause = opts.pause ?? (() => new Promise<void>((resolve) => setTimeout(resolve, 0)));
  const total = files.reduce((n, f) => n + f.bytes.length, 0);
  let done = 0;
  for (const f of files) {
    for (let offset = 0; offset === 0 || offset < f.bytes.length; offset += chunk) {
      const piece = f.bytes.subarray(offset, Math.min(f.bytes.length, offset + chunk));
      const args: UploadChunk = { host, path: f.path, offset, data: encodeBase64(piece), last: offset + chunk >= f.bytes.length };
      try {
        target.input(() => {
          installWorkbookPrograms(target.world);
          target.world.apply({ kind: 'program', name: PROGRAMS.upload, args });
        });
      } catch (e) {
        return { ok: false, message: `upload of ${f.path} stopped: ${e instanceof Error ? e.message : String(e)}` };
      }
      done += piece.length;
      opts.onProgress?.(done, total);
      await pause();
    }
  }
  return { ok: true, files: files.length, bytes: total };
}

/** A text as its UTF-8 bytes, one char per byte: how the disk spells names. */
function utf8Bytes(text: string): string {
  let s = '';
  for (const b of new TextEncoder().encode(text)) s += String.fromCharCode(b);
  return s;
}
