/**
 * The messages between a code cell's code (in a Web Worker, or in process
 * for tests) and the page that owns the world. The two run in lockstep so
 * that virtual time never depends on how fast either side is:
 *
 *   page → cell   start     the source and the world's clock
 *   cell → page   step      "I have nothing left to do until something
 *                           answers": the requests made since the last step
 *   page → cell   deliver   what answered, at the virtual time it did
 *   cell → page   print / report   output, at any time
 *   cell → page   done      the cell's code ended (with its error, if any),
 *                           with the requests it made last and never awaited
 *
 * The world moves only between a step and the next deliver, so a cell that
 * computes (or spins) holds virtual time still, and a cell that waits lets
 * the world run as fast as it can until the first answer.
 *
 * Every message is plain structured-cloneable data; the page validates
 * what a cell sends (cell-messages.ts), since the cell's code can post
 * anything.
 */

/** An argument of a command as the cell gives it (ioredis accepts the same). */
export type CellArg = string | number | bigint | Uint8Array;

export type Flight = 'command' | 'pipeline' | 'multi';

/** A sentinel a cell's client asks for its primary. */
export interface SentinelAt {
  readonly host: string;
  readonly port: number;
}

/** One shard of a sharded connection: 'host:port' of its primary and of its replicas. */
export interface CellShard {
  readonly primary: string;
  readonly replicas: readonly string[];
}

/** What a cell asks of the page. `id` matches the answer; `conn` names a connection of this cell. */
export type CellRequest =
  | {
      readonly id: number;
      readonly op: 'open';
      readonly conn: number;
      readonly from?: string;
      readonly to?: string;
      readonly client?: string;
      /** With `name`: find the primary through these sentinels and follow it (ioredis's { sentinels, name }). */
      readonly sentinels?: SentinelAt[];
      readonly name?: string;
      /** A connection over several shards: each a primary and its replicas, as 'host:port'. */
      readonly shards?: readonly CellShard[];
      readonly scaleReads?: 'master' | 'slave' | 'all';
    }
  | { readonly id: number; readonly op: 'send'; readonly conn: number; readonly flight: Flight; readonly argvs: CellArg[][] }
  | { readonly id: number; readonly op: 'close'; readonly conn: number }
  | { readonly id: number; readonly op: 'sleep'; readonly ms: number };

/** An error as it crosses between the two sides. */
export interface WireError {
  readonly name: string;
  readonly message: string;
}

/**
 * A client value as it crosses to the cell: what emulator/client-library/values.ts
 * gives, with errors (inside EXEC's array, in a pipeline's pairs) as
 * `{ error }` objects, since Error subclasses do not survive cloning.
 */
export type WireValue = string | number | bigint | null | Uint8Array | { readonly error: WireError } | WireValue[];

export type CellResult = { readonly id: number; readonly ok: true; readonly value: WireValue } | { readonly id: number; readonly ok: false; readonly error: WireError };

/** Where a thrown error points in the cell's source (1-based), when known. */
export interface CellError extends WireError {
  readonly line: number | null;
  readonly column: number | null;
}

export interface StartMessage {
  readonly type: 'start';
  readonly cellId: string;
  readonly source: string;
  /** The world's clock: now, and when the world began (us since the Unix epoch). */
  readonly nowUs: number;
  readonly startUs: number;
}

export interface DeliverMessage {
  readonly type: 'deliver';
  readonly nowUs: number;
  readonly results: CellResult[];
}

export type PageMessage = StartMessage | DeliverMessage;

/** What a long run is doing now, and how far it is (0 to 1; null when it does not know). */
export interface CellProgress {
  readonly text: string;
  readonly fraction: number | null;
}

export type CellMessage =
  /** `progress`: the last progress(text, fraction) the code gave since the last step, if any. */
  | { readonly type: 'step'; readonly requests: CellRequest[]; readonly progress?: CellProgress }
  /** Printed lines, oldest first, and how many lines printed before them were not kept (see cell-runtime.ts). */
  | { readonly type: 'print'; readonly lines: string[]; readonly dropped: number }
  | { readonly type: 'report'; readonly name: string; readonly value: unknown }
  | { readonly type: 'done'; readonly error: CellError | null; readonly requests: CellRequest[] };
