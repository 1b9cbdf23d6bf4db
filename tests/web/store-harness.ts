import { WorldStore, type FrameScheduler, type TerminalChoice } from '../../src/web/world-store.js';
import { Screen } from './terminal/screen.js';
import { loadShellParts } from '../../src/web/shell-loader.js';

// The page loads the host shell's code when a shell is first needed; here it is loaded
// beforehand, so that the harness's fake clocks alone drive every terminal.
await loadShellParts();

/** A frame of the page, in wall ms. */
const FRAME_MS = 16;

/**
 * A WorldStore on a wall clock the test moves by hand, with frames and
 * timers run by the test: the browser's loop without the browser.
 */
export function storeHarness() {
  let wall = 1000;
  const frames: Array<() => void> = [];
  const timers: Array<() => void> = [];
  const scheduler: FrameScheduler = {
    frame: (cb) => frames.push(cb),
    later: (cb) => timers.push(cb),
  };
  const store = new WorldStore({ seed: 1, wallNowMs: () => wall, scheduler });
  store.start();
  let published = 0;
  store.subscribe(() => published++);

  /** Lets promise callbacks (replies reaching RedisCliRepl) run. */
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  return {
    store,
    get published() {
      return published;
    },
    /** Moves the wall clock on by `ms`, frame by frame, running what each frame and timer would. */
    async run(ms: number): Promise<void> {
      for (let t = 0; t < ms; t += FRAME_MS) {
        wall += FRAME_MS;
        for (const cb of timers.splice(0)) cb();
        for (const cb of frames.splice(0)) cb();
        await settle();
        for (const cb of timers.splice(0)) cb();
        await settle();
      }
    },
    /** Opens a terminal whose output goes to a model screen. */
    open(choice?: TerminalChoice, cols = 80) {
      const id = store.openTerminal(choice);
      const session = store.terminal(id)!;
      const screen = new Screen(cols);
      let raw = '';
      session.resize(cols);
      session.attach((text) => {
        raw += text;
        screen.write(text);
      });
      return {
        id,
        session,
        screen,
        get raw() {
          return raw;
        },
        lines: () => screen.text(),
      };
    },
  };
}
