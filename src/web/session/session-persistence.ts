import type { RecordedAction } from '../../../emulator/world/world.js';
import type { KeyValueStore } from './kv-store.js';
import { SESSION_FORMAT, SESSION_VERSION, type BranchData, type CheckpointData, type Moment } from './session-format.js';

/** Actions per stored chunk of a branch's log: a save rewrites only the chunks that changed. */
export const LOG_CHUNK = 256;

/** What a save needs from the session, read when the save runs. */
export interface SaveSource {
  readonly savedAt: string;
  readonly activeBranch: string;
  readonly branches: ReadonlyArray<Omit<BranchData, 'head'>>;
  /** Each inactive branch's head; the active one's is `live`. */
  readonly heads: ReadonlyMap<string, Moment>;
  readonly live: Moment;
  readonly checkpoints: readonly CheckpointData[];
  readonly state: Readonly<Record<string, unknown>>;
  readonly nextId: number;
  logLength(branch: string): number;
  logSlice(branch: string, from: number, to: number): readonly RecordedAction[];
}

interface MetaRecord {
  readonly format: typeof SESSION_FORMAT;
  readonly version: typeof SESSION_VERSION;
  readonly savedAt: string;
  readonly activeBranch: string;
  readonly branches: ReadonlyArray<Omit<BranchData, 'head'> & { logLength: number }>;
  readonly checkpoints: readonly string[];
  readonly state: Readonly<Record<string, unknown>>;
  readonly nextId: number;
}

const META = 'meta';
const LIVE = 'live';
/** A saved session that could not be read back, kept once so the learner can still download it. */
export const UNREADABLE = 'unreadable-session';
const logKey = (branch: string, chunk: number): string => `log/${branch}/${chunk}`;
const cpKey = (id: string): string => `cp/${id}`;
const headKey = (branch: string): string => `head/${branch}`;

/**
 * The session in a key-value store (IndexedDB), split so that a save
 * writes what changed: a small meta record and the live moment every
 * time, each branch's log in chunks of LOG_CHUNK actions from the first
 * one not yet written, each checkpoint once, each inactive branch's head
 * when it changes. load() puts the pieces back together as the session
 * file format, for checkSession to judge.
 */
export class SessionPersistence {
  /** Actions of each branch's log known to be stored as they are now. */
  private written = new Map<string, number>();
  /** Log length stored for each branch (the chunks that exist). */
  private stored = new Map<string, number>();
  private checkpointsStored = new Set<string>();
  private headsStored = new Map<string, Moment>();

  constructor(private readonly kv: KeyValueStore) {}

  /** A branch's log changed from action `from` on (a rewind cut it there, or it was replaced). */
  invalidateLog(branch: string, from: number): void {
    const w = this.written.get(branch);
    if (w !== undefined && w > from) this.written.set(branch, from);
  }

  /** Forget what is stored: the next save writes everything (after an import, or a store that was unreadable). */
  forget(): void {
    this.written.clear();
    this.checkpointsStored.clear();
    this.headsStored.clear();
  }

  async save(src: SaveSource): Promise<{ entries: number }> {
    const entries: Array<[string, unknown]> = [];
    const deletes: string[] = [];
    const branchIds = new Set(src.branches.map((b) => b.id));
    for (const b of src.branches) {
      const length = src.logLength(b.id);
      const written = Math.min(this.written.get(b.id) ?? 0, length);
      if (written < length || (this.stored.get(b.id) ?? 0) !== length) {
        for (let c = Math.floor(written / LOG_CHUNK); c * LOG_CHUNK < length; c++) {
          entries.push([logKey(b.id, c), src.logSlice(b.id, c * LOG_CHUNK, Math.min(length, (c + 1) * LOG_CHUNK))]);
        }
      }
      const before = this.stored.get(b.id) ?? 0;
      for (let c = Math.ceil(length / LOG_CHUNK); c < Math.ceil(before / LOG_CHUNK); c++) deletes.push(logKey(b.id, c));
      this.written.set(b.id, length);
      this.stored.set(b.id, length);
      const head = src.heads.get(b.id);
      if (head !== undefined && this.headsStored.get(b.id) !== head) {
        entries.push([headKey(b.id), head]);
        this.headsStored.set(b.id, head);
      } else if (head === undefined && this.headsStored.has(b.id)) {
        deletes.push(headKey(b.id));
        this.headsStored.delete(b.id);
      }
    }
    for (const [id, length] of [...this.stored]) {
      if (branchIds.has(id)) continue;
      for (let c = 0; c < Math.ceil(length / LOG_CHUNK); c++) deletes.push(logKey(id, c));
      deletes.push(headKey(id));
      this.stored.delete(id);
      this.written.delete(id);
      this.headsStored.delete(id);
    }
    const cpIds = new Set(src.checkpoints.map((c) => c.id));
    for (const c of src.checkpoints) {
      if (this.checkpointsStored.has(c.id)) continue;
      entries.push([cpKey(c.id), c]);
      this.checkpointsStored.add(c.id);
    }
    for (const id of [...this.checkpointsStored]) {
      if (cpIds.has(id)) continue;
      deletes.push(cpKey(id));
      this.checkpointsStored.delete(id);
    }
    const meta: MetaRecord = {
      format: SESSION_FORMAT,
      version: SESSION_VERSION,
      savedAt: src.savedAt,
      activeBranch: src.activeBranch,
      branches: src.branches.map((b) => ({ ...b, logLength: src.logLength(b.id) })),
      checkpoints: src.checkpoints.map((c) => c.id),
      state: src.state,
      nextId: src.nextId,
    };
    entries.push([LIVE, src.live], [META, meta]);
    try {
      await this.kv.setMany(entries);
      if (deletes.length !== 0) await this.kv.delMany(deletes);
    } catch (e) {
      // Nothing is known to be stored any more: the next save writes it all.
      this.forget();
      this.stored.clear();
      throw e;
    }
    return { entries: entries.length };
  }

  /**
   * The stored session as the file format would hold it (unchecked), or
   * undefined when nothing is stored. Remembers what is stored, so the
   * next save writes only what changes after it.
   */
  async load(): Promise<unknown> {
    const meta = (await this.kv.get(META)) as Partial<MetaRecord> | undefined;
    if (meta === undefined) return undefined;
    if (typeof meta !== 'object' || meta === null || !Array.isArray(meta.branches) || !Array.isArray(meta.checkpoints)) return meta;
    const logs: Record<string, RecordedAction[]> = {};
    const branches: unknown[] = [];
    for (const b of meta.branches as Array<MetaRecord['branches'][number]>) {
      const chunks = Math.ceil((Number(b.logLength) || 0) / LOG_CHUNK);
      const parts = (await this.kv.getMany(Array.from({ length: chunks }, (_, c) => logKey(b.id, c)))) as Array<RecordedAction[] | undefined>;
      const log = parts.flatMap((p) => (Array.isArray(p) ? p : []));
      logs[b.id] = log;
      const active = b.id === meta.activeBranch;
      const head = (await this.kv.get(active ? LIVE : headKey(b.id))) as Moment | undefined;
      const { logLength, ...rest } = b;
      branches.push({ ...rest, head });
      if (log.length === logLength) {
        this.written.set(b.id, logLength);
        this.stored.set(b.id, logLength);
      }
      if (!active && head !== undefined) this.headsStored.set(b.id, head);
    }
    const checkpoints = (await this.kv.getMany(meta.checkpoints.map((id) => cpKey(String(id))))) as Array<CheckpointData | undefined>;
    for (const c of checkpoints) if (c !== undefined) this.checkpointsStored.add(c.id);
    return {
      format: meta.format,
      version: meta.version,
      savedAt: meta.savedAt,
      activeBranch: meta.activeBranch,
      branches,
      logs,
      checkpoints,
      state: meta.state,
      nextId: meta.nextId,
    };
  }

  /** Keeps data that could not be read back under a key of its own, out of the way of the next save. */
  async keepUnreadable(data: unknown): Promise<void> {
    this.forget();
    this.stored.clear();
    await this.kv.setMany([[UNREADABLE, data]]);
    await this.kv.delMany((await this.kv.keys()).filter((k) => k !== UNREADABLE));
  }

  async readUnreadable(): Promise<unknown> {
    return this.kv.get(UNREADABLE);
  }
}
