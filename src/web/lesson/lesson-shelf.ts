import type { KeyValueStore } from '../session/kv-store.js';
import type { SessionFile } from '../session/session-format.js';

/**
 * Every lesson the learner has opened, kept when they go to another: how
 * far they came (for the lesson list) and the whole session it had (its
 * world, terminals, checkpoints and progress), so the lesson reopens where
 * it was left, or finished. Kept in its own key-value store (IndexedDB in
 * the page), apart from the session of the lesson now open.
 *
 *   const shelf = new LessonShelf(indexedDbStore('redis-workbook-lessons', 'lessons'));
 *   await shelf.load();
 *   shelf.record('snapshots');        // { step: 3, steps: 7, finished: false, ... }
 *   await shelf.stow(record, sessionFile);
 */
export interface LessonRecord {
  readonly id: string;
  /** The step being worked on; steps once the lesson is finished. */
  readonly step: number;
  readonly steps: number;
  /** Steps done so far. */
  readonly done: number;
  readonly finished: boolean;
  /** When it was last left or changed (ISO 8601), for the learner's eyes. */
  readonly savedAt: string;
}

const RECORD = 'record:';
const SESSION = 'session:';

export class LessonShelf {
  private readonly records = new Map<string, LessonRecord>();
  private readonly listeners = new Set<() => void>();
  private version = 0;

  constructor(private readonly kv: KeyValueStore) {}

  /** Reads the records kept (not the sessions: those are read when a lesson reopens). */
  async load(): Promise<void> {
    const keys = (await this.kv.keys()).filter((k) => k.startsWith(RECORD));
    const values = await this.kv.getMany(keys);
    values.forEach((v) => {
      const r = readRecord(v);
      if (r !== null) this.records.set(r.id, r);
    });
    this.changed();
  }

  record(id: string): LessonRecord | null {
    return this.records.get(id) ?? null;
  }

  all(): LessonRecord[] {
    return [...this.records.values()];
  }

  /** Notes how far a lesson has come (the one open now, as it changes). */
  async note(record: LessonRecord): Promise<void> {
    this.records.set(record.id, record);
    this.changed();
    await this.kv.setMany([[RECORD + record.id, record]]);
  }

  /** Keeps a lesson that is being left: how far it came, and its whole session. */
  async stow(record: LessonRecord, session: SessionFile): Promise<void> {
    this.records.set(record.id, record);
    this.changed();
    await this.kv.setMany([
      [RECORD + record.id, record],
      [SESSION + record.id, session],
    ]);
  }

  /** The session a lesson was left with, or null (never left, or started again since). */
  async session(id: string): Promise<unknown> {
    return (await this.kv.get(SESSION + id)) ?? null;
  }

  /** Every lesson kept, with the session it was left with (null when there is none), for a progress file. */
  async kept(): Promise<Array<{ record: LessonRecord; session: unknown }>> {
    const records = this.all();
    const sessions = await this.kv.getMany(records.map((r) => SESSION + r.id));
    return records.map((record, i) => ({ record, session: sessions[i] ?? null }));
  }

  /** Keeps a lesson as a progress file gives it: how far it came and, when there is one, its session (else none). */
  async put(record: LessonRecord, session: SessionFile | null): Promise<void> {
    if (session !== null) return this.stow(record, session);
    this.records.set(record.id, record);
    this.changed();
    await this.kv.setMany([[RECORD + record.id, record]]);
    await this.kv.delMany([SESSION + record.id]);
  }

  /** Forgets a lesson: it starts afresh next time. */
  async forget(id: string): Promise<void> {
    this.records.delete(id);
    this.changed();
    await this.kv.delMany([RECORD + id, SESSION + id]);
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** A number that changes whenever a record does, for React. */
  getVersion = (): number => this.version;

  private changed(): void {
    this.version++;
    for (const l of [...this.listeners]) l();
  }
}

/** A record as the store gave it back, or null when it is not one. */
export function readRecord(v: unknown): LessonRecord | null {
  if (v === null || typeof v !== 'object') return null;
  const r = v as Record<string, unknown>;
  const nat = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;
  if (typeof r.id !== 'string' || !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(r.id) || !nat(r.step) || !nat(r.steps) || !nat(r.done) || typeof r.finished !== 'boolean') return null;
  return { id: r.id, step: r.step, steps: r.steps, done: r.done, finished: r.finished, savedAt: typeof r.savedAt === 'string' ? r.savedAt : '' };
}
