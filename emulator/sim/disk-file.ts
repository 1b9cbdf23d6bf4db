/**
 * The nodes of a simulated file system. A file holds two views of its bytes:
 * the page cache (what any reader sees now) and the durable medium (what a
 * power loss leaves). Directories are maps of names to nodes; the disk keeps
 * two trees of them, the current one and the durable one, which share file
 * nodes.
 *
 * The durable content is stored as a prefix of the page-cache array for as
 * long as that is true, which it stays for files that only grow, such as an
 * append-only file: appending, syncing and appending again never copy. Only
 * a change to bytes that are already durable (an overwrite, or a truncation
 * below the durable length) gives the durable content its own copy, until the
 * next sync makes the two views one again.
 */
const EMPTY = new Uint8Array(0);

export class FileNode {
  readonly kind = 'file';
  /** The page-cache content is bytes[0, size); bytes past size are stale. */
  bytes: Uint8Array = EMPTY;
  size = 0;
  /** The durable content when it is not bytes[0, durableSize). */
  private detached: Uint8Array | null = null;
  durableSize = 0;
  mtimeUs: number;
  /**
   * When the page cache first differed from the medium (Linux's
   * inode->dirtied_when), or -1 when the two agree.
   */
  dirtySinceUs = -1;
  /** The span of bytes changed since the last sync. */
  dirtyLo = 0;
  dirtyHi = 0;
  /** Names in the current tree (0 or 1: there are no hard links). */
  links = 0;
  /** Open handles. The file takes space while it has a name or a handle. */
  opens = 0;

  constructor(mtimeUs: number) {
    this.mtimeUs = mtimeUs;
  }

  get live(): boolean {
    return this.links > 0 || this.opens > 0;
  }

  get dirty(): boolean {
    return this.dirtySinceUs >= 0;
  }

  /** Bytes written since the last sync, counted as the span they cover. */
  get dirtyBytes(): number {
    if (this.dirtySinceUs < 0) return 0;
    return Math.max(0, Math.min(this.dirtyHi, this.size) - this.dirtyLo);
  }

  /** The page-cache content (a view: copy it before handing it out). */
  content(): Uint8Array {
    return this.bytes.subarray(0, this.size);
  }

  /** The durable content (a view: copy it before handing it out). */
  durableContent(): Uint8Array {
    return this.detached ?? this.bytes.subarray(0, this.durableSize);
  }

  /**
   * Puts `src` at `offset` in the page cache, zero-filling any gap past the
   * end. Returns true when this made a clean file dirty.
   */
  write(offset: number, src: Uint8Array, nowUs: number): boolean {
    const end = offset + src.length;
    if (this.detached === null && offset < this.durableSize) this.detach();
    if (end > this.bytes.length) this.reserve(end);
    if (offset > this.size) this.bytes.fill(0, this.size, offset);
    this.bytes.set(src, offset);
    const lo = Math.min(offset, this.size);
    if (end > this.size) this.size = end;
    return this.touch(lo, end, nowUs);
  }

  /** Truncates or extends (with zeros) the page cache. Returns true when this made the file dirty. */
  setSize(length: number, nowUs: number): boolean {
    if (length < this.size) {
      if (this.detached === null && length < this.durableSize) this.detach();
      this.size = length;
      return this.touch(length, length, nowUs);
    }
    if (length > this.size) {
      const lo = this.size;
      this.reserve(length);
      this.bytes.fill(0, lo, length);
      this.size = length;
      return this.touch(lo, length, nowUs);
    }
    this.mtimeUs = nowUs;
    return false;
  }

  /** The page cache reached the medium. */
  sync(): void {
    this.detached = null;
    this.durableSize = this.size;
    this.dirtySinceUs = -1;
  }

  /** The page cache is gone: the file is what the medium holds. */
  revert(): void {
    if (this.detached !== null) {
      this.bytes = this.detached;
      this.detached = null;
    }
    this.size = this.durableSize;
    this.dirtySinceUs = -1;
  }

  /** Corrupts one byte in both views, silently: nothing becomes dirty. */
  flip(offset: number, mask: number): void {
    if (offset < this.size) this.bytes[offset]! ^= mask;
    if (this.detached !== null && offset < this.durableSize) this.detached[offset]! ^= mask;
  }

  toSnapshot(encode: (bytes: Uint8Array) => string): FileSnapshot {
    return {
      data: encode(this.content()),
      durable: this.detached === null ? null : encode(this.detached),
      durableSize: this.durableSize,
      mtimeUs: this.mtimeUs,
      dirtySinceUs: this.dirtySinceUs,
      dirtyLo: this.dirtyLo,
      dirtyHi: this.dirtyHi,
    };
  }

  static fromSnapshot(s: FileSnapshot, decode: (text: string) => Uint8Array): FileNode {
    const f = new FileNode(s.mtimeUs);
    f.bytes = decode(s.data);
    f.size = f.bytes.length;
    f.detached = s.durable === null ? null : decode(s.durable);
    f.durableSize = f.detached === null ? Math.min(s.durableSize, f.size) : f.detached.length;
    f.dirtySinceUs = s.dirtySinceUs;
    f.dirtyLo = s.dirtyLo;
    f.dirtyHi = s.dirtyHi;
    return f;
  }

  private touch(lo: number, hi: number, nowUs: number): boolean {
    this.mtimeUs = nowUs;
    if (this.dirtySinceUs < 0) {
      this.dirtySinceUs = nowUs;
      this.dirtyLo = lo;
      this.dirtyHi = hi;
      return true;
    }
    if (lo < this.dirtyLo) this.dirtyLo = lo;
    if (hi > this.dirtyHi) this.dirtyHi = hi;
    return false;
  }

  private detach(): void {
    this.detached = this.bytes.slice(0, this.durableSize);
  }

  /** Grows the array by doubling, so appends cost O(1) amortised. */
  private reserve(needed: number): void {
    const grown = new Uint8Array(Math.max(needed, this.bytes.length * 2, 64));
    grown.set(this.bytes.subarray(0, this.size));
    this.bytes = grown;
  }
}

export class DirNode {
  readonly kind = 'dir';
  readonly children = new Map<string, FsNode>();

  constructor(public mtimeUs: number) {}

  toSnapshot(fileId: (f: FileNode) => number): DirSnapshot {
    const entries: Array<[string, DirSnapshot | number]> = [];
    for (const [name, node] of this.children) {
      entries.push([name, node.kind === 'dir' ? node.toSnapshot(fileId) : fileId(node)]);
    }
    return { mtimeUs: this.mtimeUs, entries };
  }

  static fromSnapshot(s: DirSnapshot, files: readonly FileNode[]): DirNode {
    const d = new DirNode(s.mtimeUs);
    for (const [name, entry] of s.entries) {
      d.children.set(name, typeof entry === 'number' ? files[entry]! : DirNode.fromSnapshot(entry, files));
    }
    return d;
  }
}

export type FsNode = FileNode | DirNode;

/** A new tree of directories holding the same file nodes. */
export function cloneTree(dir: DirNode): DirNode {
  const copy = new DirNode(dir.mtimeUs);
  for (const [name, node] of dir.children) copy.children.set(name, node.kind === 'dir' ? cloneTree(node) : node);
  return copy;
}

/** Every file under `dir`, depth first, in the order the names were made. */
export function* filesUnder(dir: DirNode): Generator<FileNode> {
  for (const node of dir.children.values()) {
    if (node.kind === 'file') yield node;
    else yield* filesUnder(node);
  }
}

/** The node at `parts` under `dir`, or undefined. */
export function findNode(dir: DirNode, parts: readonly string[]): FsNode | undefined {
  let node: FsNode = dir;
  for (const part of parts) {
    if (node.kind !== 'dir') return undefined;
    const next: FsNode | undefined = node.children.get(part);
    if (next === undefined) return undefined;
    node = next;
  }
  return node;
}

/** A file as a checkpoint holds it: contents in base64. */
export interface FileSnapshot {
  data: string;
  /** The durable content when it is not a prefix of `data`; null when it is. */
  durable: string | null;
  durableSize: number;
  mtimeUs: number;
  dirtySinceUs: number;
  dirtyLo: number;
  dirtyHi: number;
}

/** A directory: its entries in insertion order; a number is an index into the files. */
export interface DirSnapshot {
  mtimeUs: number;
  entries: Array<[string, DirSnapshot | number]>;
}
