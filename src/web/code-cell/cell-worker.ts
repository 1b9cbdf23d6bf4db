/**
 * The Web Worker a code cell runs in: one per run, made under the sandbox
 * frame's policy (cell-sandbox.ts), ended by the page when the cell ends
 * or is stopped. It keeps what the cell runtime needs
 * (posting to the page, a way to queue a task, the AsyncFunction
 * constructor), locks its global scope down, then waits for the page's
 * start message. Everything else is the runtime's (src/code-cell).
 */
import { CellRuntime, SHADOWED_NAMES } from '../../code-cell/cell-runtime.js';
import type { AsyncFunctionConstructor } from '../../code-cell/cell-source.js';
import { macrotaskQueue } from '../../code-cell/macrotask.js';
import type { CellMessage, PageMessage } from '../../code-cell/protocol.js';
import { lockDown } from './lockdown.js';

interface WorkerScope {
  postMessage(msg: unknown): void;
  addEventListener(type: 'message', listener: (e: MessageEvent<PageMessage>) => void): void;
}

const scope = self as unknown as WorkerScope;
const post = scope.postMessage.bind(scope) as (msg: CellMessage) => void;
const later = macrotaskQueue();
const AsyncFunction = (async () => {}).constructor as AsyncFunctionConstructor;
// The real clock, for pacing output: the cell itself sees virtual time.
const wallNowMs = performance.now.bind(performance);
let runtime: CellRuntime | null = null;
// Only what was kept above survives this.
const left = lockDown();

scope.addEventListener('message', (e) => {
  const msg = e.data;
  if (msg.type === 'start') {
    if (runtime !== null) return;
    if (left.length !== 0) {
      post({ type: 'done', requests: [], error: { name: 'Error', message: `This browser keeps ${left.join(', ')} in reach of a cell, so cells do not run here.`, line: null, column: null } });
      return;
    }
    // The network stays in reach of the cell's code: the sandbox's policy refuses every request.
    runtime = new CellRuntime({ post, afterMicrotasks: later, AsyncFunction, shadowed: SHADOWED_NAMES, wallNowMs }, msg);
    runtime.run();
  } else runtime?.receive(msg);
});
