/**
 * The Web Worker a code cell runs in: one per run, made under the sandbox
 * frame's policy (cell-sandbox.ts), ended by the page when the cell ends
 * or is stopped. The cell's code runs in an engine inside it, QuickJS
 * compiled to WebAssembly, whose memory has a hard maximum
 * (src/code-cell/engine/quickjs-cell.ts): a cell that fills it is stopped
 * with a clear error, and the worker, the page and its other parts go on.
 *
 * The page's first message is the engine's WebAssembly code (the worker
 * can fetch nothing itself); messages that come while the engine starts
 * wait for it. Once it has started, the worker locks its own global scope
 * down too, then hands each message to the engine. Messages marked quiet
 * are turns the page's own engine ran before this worker took the cell
 * over (engine/quiet.ts): they run again without a word to the page.
 */
import { QuickJsCell } from '../../code-cell/engine/quickjs-cell.js';
import { quietTurns, type QuietMessage } from '../../code-cell/engine/quiet.js';
import { lockDown } from '../../code-cell/lockdown.js';
import type { CellMessage, PageMessage } from '../../code-cell/protocol.js';
import type { EngineCode } from './cell-sandbox.js';

interface WorkerScope {
  postMessage(msg: unknown): void;
  addEventListener(type: 'message', listener: (e: MessageEvent<EngineCode | PageMessage | QuietMessage>) => void): void;
}

const scope = self as unknown as WorkerScope;
const post = scope.postMessage.bind(scope) as (msg: CellMessage) => void;
// The real clock, for pacing output: the cell itself sees virtual time.
const turns = quietTurns(post, performance.now.bind(performance));
let cell: QuickJsCell | Promise<QuickJsCell | null> | null = null;
const waiting: Array<PageMessage | QuietMessage> = [];

function refuse(message: string): void {
  post({ type: 'done', requests: [], error: { name: 'Error', message, line: null, column: null } });
}

scope.addEventListener('message', (e) => {
  const msg = e.data;
  if (msg.type === 'engine') {
    if (cell !== null) return;
    cell = QuickJsCell.create({ wasm: msg.wasm, post: turns.post, wallNowMs: turns.wallNowMs }).then(
      (made) => {
        const left = lockDown();
        if (left.length !== 0) {
          refuse(`This browser keeps ${left.join(', ')} in reach of a cell, so cells do not run here.`);
          return null;
        }
        cell = made;
        for (const m of waiting.splice(0)) turns.receive(made, m);
        return made;
      },
      (err: unknown) => {
        refuse(`The cell's engine could not start: ${err instanceof Error ? err.message : String(err)}`);
        return null;
      },
    );
  } else if (cell instanceof QuickJsCell) turns.receive(cell, msg);
  else waiting.push(msg);
});
