import type { World } from '../../emulator/world/world.js';
import type { ClientCpuName } from '../../emulator/sim/index.js';
import { MAX_PRINT_LINES } from './cell-messages.js';
import { CellExecutor } from './executor.js';
import { QuickJsCell } from './engine/quickjs-cell.js';
import { macrotaskQueue } from './macrotask.js';
import type { CellError, PageMessage } from './protocol.js';

export interface InProcessOptions {
  readonly source: string;
  /** The host the cell's clients run on. */
  readonly from: string;
  /** The server `redis` reaches ('host:port'); the world's first redis-server when absent. */
  readonly to?: string;
  readonly cellId?: string;
  readonly client?: ClientCpuName;
  /** Ends the run after this much virtual time (default 10 minutes). */
  readonly maxVirtualMs?: number;
  /** Aborting ends the run as the Stop button does. */
  readonly signal?: AbortSignal;
  onPrint?(text: string): void;
}

export interface CellOutcome {
  /** Printed lines, in order (the cell keeps the newest when it prints faster than they are taken). */
  readonly output: string[];
  /** Lines printed and not kept. */
  readonly dropped: number;
  /** report(name, value) calls, the last value per name. */
  readonly reports: Record<string, unknown>;
  readonly error: CellError | null;
  readonly stopped: boolean;
  /** Virtual time when the cell started and ended (us since the Unix epoch). */
  readonly startUs: number;
  readonly endUs: number;
}

/**
 * Runs a code cell against a world in this process, with the same
 * protocol, executor, cell runtime and engine (QuickJS, with its memory
 * ceiling) as the page's Web Worker, every message cloned as postMessage
 * would: for Node tests and for replaying a lesson's reference solution
 * without a browser. The engine runs on this thread, so a cell that loops
 * without awaiting holds it: only the page's worker can be ended then.
 *
 *   const out = await runCellInProcess(world, { source: 'print(await redis.ping())', from: 'app' });
 *   out.output   // ['PONG']
 */
export async function runCellInProcess(world: World, opts: InProcessOptions): Promise<CellOutcome> {
  const later = macrotaskQueue();
  const output: string[] = [];
  let dropped = 0;
  const reports: Record<string, unknown> = {};
  const startUs = world.kernel.now;
  let toPage: (msg: unknown) => void = () => undefined;
  const cell = await QuickJsCell.create({ post: (m) => toPage(structuredClone(m)), wallNowMs: () => performance.now() });
  return new Promise<CellOutcome>((resolve) => {
    const executor = new CellExecutor(world, {
      cellId: opts.cellId ?? 'cell',
      source: opts.source,
      from: opts.from,
      to: opts.to,
      client: opts.client,
      maxVirtualMs: opts.maxVirtualMs ?? 600_000,
      wallNowMs: () => performance.now(),
      later,
      post: (msg: PageMessage) => {
        const copy = structuredClone(msg);
        later(() => cell.receive(copy));
      },
      onDropped: (n) => {
        dropped += n;
      },
      onPrint: (text) => {
        output.push(text);
        // The newest lines are kept, as the page keeps them.
        if (output.length >= 2 * MAX_PRINT_LINES) dropped += output.splice(0, output.length - MAX_PRINT_LINES).length;
        opts.onPrint?.(text);
      },
      onReport: (name, value) => {
        reports[name] = value;
      },
      onEnd: (end) => {
        opts.signal?.removeEventListener('abort', abort);
        cell.dispose();
        if (output.length > MAX_PRINT_LINES) dropped += output.splice(0, output.length - MAX_PRINT_LINES).length;
        resolve({ output, dropped, reports, error: end.error, stopped: end.stopped, startUs, endUs: world.kernel.now });
      },
    });
    toPage = (m) => later(() => executor.receive(m));
    const abort = () => executor.stop();
    if (opts.signal?.aborted) {
      executor.stop();
      return;
    }
    opts.signal?.addEventListener('abort', abort);
    executor.start();
  });
}
