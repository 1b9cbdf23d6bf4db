import type { CellMessage, PageMessage } from '../protocol.js';

/**
 * A message whose turn a cell's earlier engine already ran: the page runs
 * a cell on its own thread, and when a turn runs too long it ends that
 * engine and starts the cell again in a worker (src/web/code-cell/
 * page-thread-cell.ts), handing it every message the first engine was
 * given. The turns the page has already seen are run again quietly: what
 * they post is not sent, and the runtime gets no clock to pace its output
 * by, as on the page's thread, so the quiet turns leave the engine exactly
 * where the first one was when its last turn began.
 */
export interface QuietMessage {
  readonly type: 'quiet';
  readonly msg: PageMessage;
}

/**
 * What a worker's engine posts and reads through, with quiet turns: a
 * done is always sent (a cell that ends where it did not before, as one
 * reading the real clock might, must still end for the page).
 *
 *   const q = quietTurns(post, () => performance.now());
 *   const cell = await QuickJsCell.create({ post: q.post, wallNowMs: q.wallNowMs });
 *   q.receive(cell, message);
 */
export function quietTurns(post: (msg: CellMessage) => void, wallNowMs: () => number) {
  let quiet = false;
  return {
    post(msg: CellMessage): void {
      if (!quiet || msg.type === 'done') post(msg);
    },
    wallNowMs: (): number => (quiet ? -Infinity : wallNowMs()),
    receive(cell: { receive(msg: PageMessage): unknown }, msg: PageMessage | QuietMessage): void {
      if (msg.type !== 'quiet') {
        cell.receive(msg);
        return;
      }
      quiet = true;
      try {
        cell.receive(msg.msg);
      } finally {
        quiet = false;
      }
    },
  };
}
