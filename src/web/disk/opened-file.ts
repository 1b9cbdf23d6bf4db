import { fileKind, type FileKind } from '../../../emulator/persistence/inspect/index.js';
import { Disk, type FileSystem } from '../../../emulator/sim/index.js';
import type { World } from '../../../emulator/world/world.js';
import { terminalText } from '../terminal/sanitize.js';

/**
 * A file of a host as it was when the learner opened it: a copy of what a
 * reader sees (the page cache), and how much of it is on the medium. The
 * world goes on; the viewer shows this copy until it is opened again.
 * Reading it changes nothing in the world (stat and readFile touch no
 * handle and leave no trace).
 */
export interface OpenedFile {
  readonly host: string;
  /** The path as the disk knows it (a byte string). */
  readonly path: string;
  readonly shownPath: string;
  /** The last part of the path, for a download's name. */
  readonly name: string;
  readonly bytes: Uint8Array;
  /**
   * Bytes from the start that are on the medium as they are in the copy: a
   * power loss now keeps bytes[0, durableLength) and loses the rest.
   */
  readonly durableLength: number;
  /** Whether the file would exist at all after a power loss now. */
  readonly survivesPowerLoss: boolean;
  /** Bytes a process has buffered for the file and not written yet (not in the copy). */
  readonly bufferedBytes: number;
  readonly kind: FileKind;
  /** Virtual time of the copy (us since the Unix epoch). */
  readonly openedAtUs: number;
}

/** Copies a file out of a host; throws the disk's error (ENOENT, EISDIR...) as an Error with its text. */
export function openFile(world: World, hostName: string, path: string): OpenedFile {
  const disk = world.host(hostName).disk;
  const st = disk.stat(path);
  if (st.isDirectory) throw new Error(`${terminalText(path)} is a directory`);
  const bytes = disk.readFile(path);
  const name = path.slice(path.lastIndexOf('/') + 1);
  return {
    host: hostName,
    path,
    shownPath: terminalText(path),
    name,
    bytes,
    durableLength: st.durableExists ? durablePrefix(disk, path, bytes, st.durableSize, st.dirtyBytes) : 0,
    survivesPowerLoss: st.durableExists,
    bufferedBytes: st.bufferedBytes,
    kind: fileKind(name, bytes),
    openedAtUs: world.kernel.now,
  };
}

/**
 * How many leading bytes the medium holds as the copy has them. A file that
 * only grew since its last sync (an AOF, a log) keeps its durable bytes as
 * a prefix; a file rewritten in place is compared with what the medium has.
 */
function durablePrefix(disk: FileSystem, path: string, bytes: Uint8Array, durableSize: number, dirtyBytes: number): number {
  const grownOnly = dirtyBytes <= Math.max(0, bytes.length - durableSize);
  if (grownOnly || !(disk instanceof Disk)) return Math.min(durableSize, bytes.length);
  const durable = disk.readDurableFile(path);
  if (durable === null) return 0;
  const n = Math.min(durable.length, bytes.length);
  let i = 0;
  while (i < n && durable[i] === bytes[i]) i++;
  return i;
}
