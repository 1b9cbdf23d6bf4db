import type { World } from '../../../emulator/world/world.js';
import type { Lesson } from '../../lessons/lesson.js';
import type { LessonProgress, LessonRunner, StepStatus } from '../../lessons/runner.js';
import { stateProviders } from '../session/state-providers.js';
import { loadShellParts } from '../shell-loader.js';
import { installWorkbookPrograms } from '../world-programs.js';
import { buildSandboxWorld } from '../world-setup.js';
import type { WorkbookSnapshot, WorldStore } from '../world-store.js';
import { lessonCatalogue, loadLessonFile, type CatalogueEntry } from './lesson-files.js';
import { LESSON_STATE_KEY, lessonKeeping } from './lesson-keeping.js';
import { lessonParts } from './lesson-loaders.js';
import type { LessonRecord, LessonShelf } from './lesson-shelf.js';
import type { KeptLesson } from './progress-file.js';
import type { StoreLessonHost } from './store-host.js';

/** What the lesson pane shows, as one immutable value per change. */
export interface LessonPaneState {
  /** Every lesson, as the list shows it (made when the page was built; a lesson is parsed when opened). */
  readonly catalogue: readonly CatalogueEntry[];
  readonly catalogueErrors: readonly string[];
  /** The picker, or the current lesson. */
  readonly view: 'picker' | 'lesson';
  /** The lesson being followed; null in the sandbox. */
  readonly lesson: Lesson | null;
  readonly progress: LessonProgress | null;
  readonly status: StepStatus | null;
  /** What the shells printed for each events block played, by block key ("2:3"). */
  readonly eventOutput: Readonly<Record<string, string>>;
  /** The block being played or the solution being run, if any. */
  readonly busy: string | null;
  /** A failure to report (a lesson that would not load, an event that threw). */
  readonly error: string | null;
  /** How far each lesson opened before has come, by id (the one open now as it goes). */
  readonly records: Readonly<Record<string, LessonRecord>>;
  /** A lesson being opened where it was left: its title. */
  readonly reopening: string | null;
  /** A lesson whose file is being loaded to open it: its title. */
  readonly opening: string | null;
  /**
   * The lesson open now is a moment someone shared (a link): shown as a
   * copy beside the learner's own progress in that lesson, which it never
   * replaces (the list and the shelf keep the learner's own).
   */
  readonly shared: boolean;
}

/** The progress file's code, loaded when the learner exports or imports. */
const progressFiles = (): Promise<typeof import('./progress-file.js')> => import('./progress-file.js');

interface SavedLesson {
  readonly lesson: string;
  readonly progress: unknown;
  /** Set when the session is a moment opened from a shared link (see share-link.ts). */
  readonly shared?: boolean;
}

/** The controller of a store, made on first use (the session and the pane share it). */
const controllers = new WeakMap<WorldStore, LessonController>();

export function lessonController(store: WorldStore): LessonController {
  let c = controllers.get(store);
  if (c === undefined) {
    c = new LessonController(store);
    controllers.set(store, c);
  }
  return c;
}

/**
 * The lesson pane's state and actions, outside React: the catalogue, the
 * runner of the current lesson over the page's store, and what the
 * pane's buttons do. The runner's checks are evaluated whenever the
 * store publishes a changed world.
 *
 *   const lessons = lessonController(store);
 *   await lessons.choose(lessons.state.catalogue[2]);
 */
export class LessonController {
  private current: LessonPaneState = {
    catalogue: lessonCatalogue().lessons,
    catalogueErrors: lessonCatalogue().errors,
    view: 'picker',
    lesson: null,
    progress: null,
    status: null,
    eventOutput: {},
    busy: null,
    error: null,
    records: {},
    reopening: null,
    opening: null,
    shared: false,
  };
  private readonly listeners = new Set<() => void>();
  private runner: LessonRunner | null = null;
  private offRunner: (() => void) | null = null;
  /** The lesson runner's way into the page's store, made with the first lesson opened. */
  private storeHost: StoreLessonHost | null = null;
  private lastCluster: WorkbookSnapshot['cluster'] | null = null;
  /** Each lesson file loaded and parsed, by file name: a lesson is parsed once, when first opened. */
  private readonly parsed = new Map<string, Promise<Lesson>>();
  /** The world the shown block output came from: output of another timeline (one rewound away from) is never shown. */
  private outputWorld: World | null = null;
  /**
   * A saved lesson being taken up again while its file loads (restoreSaved):
   * what the session keeps of the lesson meanwhile, so a save or a shared
   * link opened in that time keeps the learner's lesson rather than none.
   */
  private restoring: SavedLesson | null = null;
  /** The record last noted on the shelf ("id:step:done"), so it is written only when it changes. */
  private lastNoted = '';

  constructor(private readonly store: WorldStore) {
    const shelf = lessonKeeping.shelf;
    if (shelf !== null) {
      const read = () => this.set({ records: Object.fromEntries(shelf.all().map((r) => [r.id, r])) });
      shelf.subscribe(read);
      read();
    }
    store.subscribe(() => this.worldMoved());
    // The lesson being followed and the learner's progress are saved with the session.
    stateProviders.register({
      key: LESSON_STATE_KEY,
      save: () => this.saved(),
      restore: (data) => void this.restoreSaved(data),
      reset: () => this.forget(),
    });
  }

  /** What the session keeps of the lesson: which one, and the progress in it. */
  private saved(): SavedLesson | null {
    const r = this.runner;
    if (r === null) return this.restoring;
    // A shared moment stays one through a reload: the learner's own progress is never taken from it.
    return this.current.shared ? { lesson: r.lesson.meta.id, progress: r.progress(), shared: true } : { lesson: r.lesson.meta.id, progress: r.progress() };
  }

  /** A saved session comes back: its world and terminals are already hosted; take the lesson up over them. */
  private async restoreSaved(data: unknown): Promise<void> {
    if (data === null || typeof data !== 'object' || typeof (data as SavedLesson).lesson !== 'string') {
      this.forget();
      return;
    }
    const saved = data as SavedLesson;
    const entry = this.current.catalogue.find((l) => l.id === saved.lesson);
    if (entry === undefined) {
      this.forget();
      this.set({ error: `The saved lesson "${saved.lesson}" is not in this workbook any more; the world is kept as a sandbox.` });
      return;
    }
    this.restoring = saved;
    const lesson = await this.lessonOf(entry).catch((e: unknown) => {
      if (this.restoring !== saved) return null;
      this.forget();
      this.set({ error: `“${entry.title}” could not be loaded: ${e instanceof Error ? e.message : String(e)}` });
      return null;
    });
    // Another restore, a lesson chosen or a reset since: this one is no longer wanted.
    if (lesson === null || this.restoring !== saved) return;
    this.restoring = null;
    try {
      this.resume(lesson, saved.progress, saved.shared === true);
    } catch (e) {
      this.forget();
      this.set({ error: `The saved progress in "${lesson.meta.title}" could not be read: ${e instanceof Error ? e.message : String(e)}` });
    }
  }

  /** No lesson any more (the session started over with a sandbox of its own). */
  private forget(): void {
    this.restoring = null;
    this.detach();
    this.set({ view: 'picker', lesson: null, progress: null, status: null, eventOutput: {}, busy: null, error: null, shared: false });
  }

  get state(): LessonPaneState {
    return this.current;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getState = (): LessonPaneState => this.current;

  private set(patch: Partial<LessonPaneState>): void {
    this.current = { ...this.current, ...patch };
    for (const l of [...this.listeners]) l();
  }

  /** The runner of the current lesson, if any (the session saves its progress). */
  get lessonRunner(): LessonRunner | null {
    return this.runner;
  }

  /**
   * A lesson of the list, its file loaded and parsed (once), with the host
   * shell the lessons' worlds run their scripted events and checks in.
   */
  private lessonOf(entry: CatalogueEntry): Promise<Lesson> {
    let p = this.parsed.get(entry.file);
    if (p === undefined) {
      p = Promise.all([loadLessonFile(entry.file), loadShellParts(), lessonParts.load()]).then(([lesson]) => lesson);
      // A load that failed (the network, say) is tried again the next time.
      p.catch(() => this.parsed.delete(entry.file));
      this.parsed.set(entry.file, p);
    }
    return p;
  }

  /**
   * Loads a lesson to open it, saying so while it loads; null (and the
   * reason shown) when it cannot be loaded.
   */
  private async load(entry: CatalogueEntry): Promise<Lesson | null> {
    this.set({ opening: entry.title, error: null });
    try {
      return await this.lessonOf(entry);
    } catch (e) {
      this.set({ error: `“${entry.title}” could not be loaded: ${e instanceof Error ? e.message : String(e)}` });
      return null;
    } finally {
      this.set({ opening: null });
    }
  }

  /** The lesson's view, once a lesson has been loaded (it comes with the lesson). */
  get lessonView(): (typeof import('./lesson-parts.js'))['LessonView'] | null {
    return lessonParts.now()?.LessonView ?? null;
  }

  /** The parts a lesson runs with; a lesson is only attached once lessonOf has loaded them. */
  private get parts(): typeof import('./lesson-parts.js') {
    const parts = lessonParts.now();
    if (parts === null) throw new Error('a lesson is attached before its parts were loaded');
    return parts;
  }

  private get host(): StoreLessonHost {
    this.storeHost ??= new this.parts.StoreLessonHost(this.store);
    return this.storeHost;
  }

  /** Whether the pane is opening a lesson, so the list takes no other choice meanwhile. */
  private get occupied(): boolean {
    return this.current.busy !== null || this.current.reopening !== null || this.current.opening !== null;
  }

  showPicker(): void {
    this.set({ view: 'picker' });
  }

  /** Back to the lesson being followed, from the picker. */
  showLesson(): void {
    if (this.runner !== null) this.set({ view: 'lesson' });
  }

  private get shelf(): LessonShelf | null {
    return lessonKeeping.shelf;
  }

  /**
   * Opens a lesson from the list: where it was left (its kept session,
   * world and progress come back) when it was opened before, else from its
   * beginning. The lesson open now is kept first. Chosen while a shared
   * moment of it is open, the lesson opens as the learner left it. Its
   * file is loaded first, so the lesson open now stays as it is until
   * the new one can take its place.
   */
  async choose(entry: CatalogueEntry): Promise<void> {
    if (this.occupied) return;
    if (this.runner?.lesson.meta.id === entry.id && !this.current.shared) {
      this.showLesson();
      return;
    }
    const lesson = await this.load(entry);
    if (lesson === null) return;
    await this.stowCurrent();
    const shelf = this.shelf;
    const session = lessonKeeping.session;
    const kept = shelf === null || session === null ? null : await shelf.session(lesson.meta.id).catch(() => null);
    if (kept !== null && session !== null) {
      this.set({ reopening: lesson.meta.title, error: null });
      const ok = await session.openKept(kept, `Opening “${lesson.meta.title}” where you left it`);
      this.set({ reopening: null });
      if (ok) {
        // The session's lesson state has come back with it; it takes the lesson up.
        this.set({ view: 'lesson' });
        return;
      }
      this.set({ error: `“${lesson.meta.title}” could not be opened where you left it; it starts again from the beginning.` });
    }
    this.open(lesson);
  }

  /** Leaves the shared moment open now for the learner's own progress in its lesson (its beginning if they have none). */
  async backToOwn(): Promise<void> {
    const lesson = this.current.lesson;
    const entry = this.current.catalogue.find((l) => l.id === lesson?.meta.id);
    if (entry !== undefined && this.current.shared) await this.choose(entry);
  }

  /** Starts a lesson again from its beginning, forgetting where it was left. */
  async startAgain(entry: CatalogueEntry): Promise<void> {
    if (this.occupied) return;
    const lesson = await this.load(entry);
    if (lesson === null) return;
    if (this.runner?.lesson.meta.id !== lesson.meta.id) await this.stowCurrent();
    await this.shelf?.forget(lesson.meta.id).catch(() => undefined);
    this.open(lesson);
  }

  /** Starts the lesson open now again from its beginning (its entry of the list). */
  async startAgainOpen(): Promise<void> {
    const entry = this.current.catalogue.find((l) => l.id === this.current.lesson?.meta.id);
    if (entry !== undefined) await this.startAgain(entry);
  }

  /**
   * Every lesson's progress as one file's text (see progress-file.ts):
   * the lesson open now is kept first, so it goes in as it is. Null when
   * the page keeps no lessons.
   */
  async exportProgress(): Promise<string | null> {
    const shelf = this.shelf;
    if (shelf === null) return null;
    await this.stowCurrent();
    const { progressFile } = await progressFiles();
    const kept = await shelf.kept();
    return JSON.stringify(progressFile(kept.map((k) => ({ record: k.record, session: k.session as KeptLesson['session'] })), new Date().toISOString()));
  }

  /**
   * Takes every lesson of a progress file's text back where it was. A
   * file that is not one, or a damaged one, changes nothing: the result
   * says why. Lessons the file does not name keep what they had; the
   * lesson open now, when the file names it, reopens as the file has it.
   */
  async importProgress(text: string): Promise<{ ok: true; lessons: number } | { ok: false; message: string }> {
    const shelf = this.shelf;
    if (shelf === null) return { ok: false, message: 'This page keeps no lessons, so it cannot take progress in.' };
    if (this.occupied) return { ok: false, message: 'Wait for the lesson to finish what it is doing.' };
    const parsed = (await progressFiles()).parseProgressText(text);
    if (!parsed.ok) return parsed;
    const lessons = parsed.progress.lessons;
    try {
      for (const k of lessons) await shelf.put(k.record, k.session);
    } catch (e) {
      return { ok: false, message: `The progress could not be kept in this browser: ${e instanceof Error ? e.message : String(e)}` };
    }
    const open = this.runner === null ? undefined : lessons.find((k) => k.record.id === this.runner!.lesson.meta.id);
    const session = lessonKeeping.session;
    if (open?.session != null && session !== null) {
      const title = this.runner!.lesson.meta.title;
      this.set({ reopening: title });
      const ok = await session.openKept(open.session, `Opening “${title}” as the file has it`);
      this.set({ reopening: null });
      if (!ok) return { ok: false, message: `The other lessons were taken in, but “${title}” could not be opened as the file has it; it stays as it was.` };
    }
    return { ok: true, lessons: lessons.length };
  }

  /**
   * Keeps the lesson open now on the shelf, with its whole session, before
   * the page leaves it. A shared moment is not the learner's: the shelf
   * keeps their own session of that lesson, and the moment is let go.
   */
  private async stowCurrent(): Promise<void> {
    const r = this.runner;
    const shelf = this.shelf;
    const session = lessonKeeping.session;
    if (r === null || shelf === null || session === null || this.current.shared) return;
    try {
      await shelf.stow(recordOf(r.lesson, r.progress()), session.exportSession());
    } catch (e) {
      this.set({ error: `“${r.lesson.meta.title}” could not be kept to come back to: ${e instanceof Error ? e.message : String(e)}` });
    }
  }

  /** Starts a lesson from its beginning: its world replaces the page's, its terminals open. */
  open(lesson: Lesson): void {
    const runner = this.attach(lesson);
    try {
      runner.start();
    } catch (e) {
      this.set({ error: `The lesson's world could not be built: ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    this.set({ view: 'lesson', eventOutput: {}, error: null });
    this.sync();
  }

  /**
   * Takes up a lesson over the world the page hosts now (restored from a
   * saved session, with its terminals), at the saved progress; `shared`
   * when that session is a moment from a shared link.
   */
  resume(lesson: Lesson, progress: unknown, shared = false): void {
    const runner = this.attach(lesson, shared);
    this.host.adoptWorld(lesson.meta.world.terminals);
    runner.restoreProgress(progress);
    this.set({ view: 'lesson', eventOutput: {}, error: null });
    this.sync();
  }

  /** Leaves the lesson (kept on the shelf) for a fresh sandbox world. */
  async openSandbox(): Promise<void> {
    await this.stowCurrent();
    this.detach();
    this.store.replaceWorld(buildSandboxWorld());
    this.store.openTerminal();
    this.set({ view: 'picker', lesson: null, progress: null, status: null, eventOutput: {}, busy: null, error: null, shared: false });
  }

  private attach(lesson: Lesson, shared = false): LessonRunner {
    // A lesson taken up now: a restore still loading its file is no longer wanted.
    this.restoring = null;
    this.detach();
    // Set before the runner reports its progress, so a shared moment's is never noted as the learner's.
    this.set({ shared });
    const { LessonRunner, lessonCellOptions } = this.parts;
    const runner = new LessonRunner(lesson, this.host, { worldSetup: installWorkbookPrograms, ...lessonCellOptions(this.store) });
    this.runner = runner;
    this.offRunner = runner.subscribe(() => this.sync());
    this.set({ lesson });
    return runner;
  }

  private detach(): void {
    this.offRunner?.();
    this.offRunner = null;
    if (this.runner !== null) stateProviders.changed();
    this.runner = null;
  }

  /** Starts the current lesson over: a fresh world, no progress. */
  reset(): void {
    const lesson = this.current.lesson;
    if (lesson !== null) this.open(lesson);
  }

  /** Types a run block's lines into its terminal; the pane's buttons wait until they have run. */
  run(key: string, terminal: string, lines: readonly string[]): void {
    void this.guard(key, () => this.runner!.runLines(terminal, lines));
  }

  /** Plays an events block; its output is kept under the block's key. */
  play(key: string, lines: readonly string[]): void {
    void this.guard(key, async () => {
      const world = this.store.world;
      this.keepOutput(world, key, await this.runner!.playEvents(lines));
    });
  }

  /** Plays the current step's reference solution, as "do it for me". */
  playSolution(): void {
    const step = this.current.progress?.step ?? 0;
    void this.guard(`solution:${step}`, async () => {
      const world = this.store.world;
      const out = await this.runner!.playSolution();
      if (out !== '') this.keepOutput(world, `solution:${step}`, out);
    });
  }

  /**
   * Shows what a block printed in `world`, unless the page has left that
   * world meanwhile (a rewind or a branch switch while it played): the
   * output of a timeline the learner left would describe a world that
   * is not there.
   */
  private keepOutput(world: World, key: string, out: string): void {
    if (this.store.world !== world) return;
    const kept = this.outputWorld === world ? this.current.eventOutput : {};
    this.outputWorld = world;
    this.set({ eventOutput: { ...kept, [key]: out } });
  }

  showHint(): void {
    this.runner?.showHint();
  }

  revealSolution(): void {
    this.runner?.revealSolution();
  }

  next(): void {
    void this.guard('next', () => this.runner!.next());
  }

  goTo(step: number): void {
    void this.guard(`step:${step}`, () => this.runner!.goTo(step));
  }

  editCell(id: string, source: string): void {
    this.runner?.editCell(id, source);
  }

  private async guard(key: string, fn: () => Promise<void>): Promise<void> {
    if (this.runner === null || this.current.busy !== null) return;
    this.set({ busy: key, error: null });
    try {
      await fn();
    } catch (e) {
      this.set({ error: e instanceof Error ? e.message : String(e) });
    } finally {
      this.set({ busy: null });
    }
  }

  /** The store published: if the world moved, the checks look again. */
  private worldMoved(): void {
    if (this.outputWorld !== null && this.store.world !== this.outputWorld) {
      this.outputWorld = null;
      if (Object.keys(this.current.eventOutput).length !== 0) this.set({ eventOutput: {} });
    }
    const cluster = this.store.getSnapshot().cluster;
    if (cluster === this.lastCluster) return;
    this.lastCluster = cluster;
    this.runner?.evaluate();
  }

  private sync(): void {
    const r = this.runner;
    if (r === null) return;
    const progress = r.progress();
    const changed = JSON.stringify(progress) !== JSON.stringify(this.current.progress);
    this.set({ progress, status: r.stepStatus });
    if (changed) {
      stateProviders.changed();
      if (this.current.shared) return;
      const record = recordOf(r.lesson, progress);
      const key = `${record.id}:${record.step}:${record.done}`;
      if (key !== this.lastNoted) {
        this.lastNoted = key;
        void this.shelf?.note(record).catch(() => undefined);
      }
    }
  }
}

/** How far a lesson has come, for the list. */
export function recordOf(lesson: Lesson, p: LessonProgress): LessonRecord {
  const steps = lesson.steps.length;
  return { id: lesson.meta.id, step: p.step, steps, done: p.done.filter(Boolean).length, finished: p.step >= steps, savedAt: new Date().toISOString() };
}
