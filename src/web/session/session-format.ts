import type { RecordedAction } from '../../../emulator/world/world.js';
import type { SavedTerminal } from '../world-store.js';

/**
 * The learner's session as plain data: what IndexedDB keeps between
 * visits and what an exported file holds. A world is its seed and its
 * log of outside actions (a branch); a moment of it is how far into the
 * log and into virtual time it had come, with the terminals and the time
 * controls as they were then. Checkpoints are named moments.
 */
export const SESSION_FORMAT = 'redis-workbook-session';
export const SESSION_VERSION = 1;

export interface ClockState {
  readonly speed: number;
  readonly paused: boolean;
}

/** A point of a branch's history, with the page as it was there. */
export interface Moment {
  /** Actions of the branch's log done by then. */
  readonly actionCount: number;
  readonly eventsRun: number;
  /** Virtual time, us since the Unix epoch. */
  readonly nowUs: number;
  readonly terminals: readonly SavedTerminal[];
  readonly active: string | null;
  readonly clock: ClockState;
}

export interface CheckpointData {
  readonly id: string;
  readonly branch: string;
  /** "before power loss on redis", "checkpoint 3". */
  readonly label: string;
  /** Taken by the workbook before a fault, rather than asked for. */
  readonly auto: boolean;
  readonly moment: Moment;
}

export interface BranchData {
  readonly id: string;
  readonly name: string;
  readonly seed: number;
  readonly startUs: number;
  /** The branch it was forked from, and the checkpoint's label there. */
  readonly parent: string | null;
  readonly forkedFrom: string | null;
  /** Where the branch was when last seen. */
  readonly head: Moment;
}

/** The whole session: the file format, version 1. */
export interface SessionFile {
  readonly format: typeof SESSION_FORMAT;
  readonly version: typeof SESSION_VERSION;
  /** When it was saved, for the learner's eyes (ISO 8601). */
  readonly savedAt: string;
  readonly activeBranch: string;
  readonly branches: readonly BranchData[];
  /** Each branch's action log, by branch id. */
  readonly logs: Readonly<Record<string, readonly RecordedAction[]>>;
  readonly checkpoints: readonly CheckpointData[];
  /** The state providers' data, by key (lesson progress...). */
  readonly state: Readonly<Record<string, unknown>>;
  /** The next number for a checkpoint's or a branch's id. */
  readonly nextId: number;
}
