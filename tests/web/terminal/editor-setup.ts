import { redisCliAssistData } from '../../../emulator/redis-cli/assist-data.js';
import { commandCompletions } from '../../../emulator/redis-cli/completion.js';
import { commandHint } from '../../../emulator/redis-cli/hints.js';
import { parseKeys } from '../../../src/web/terminal/key-input.js';
import type { LineAssist } from '../../../src/web/terminal/line-assist.js';
import { LineEditor, type EditorEvent } from '../../../src/web/terminal/line-editor.js';
import { Screen } from './screen.js';

/** redis-cli's completion and hints, with the help table at hand (the page loads it later). */
export function redisCliAssistNow(): LineAssist {
  const data = redisCliAssistData();
  return {
    complete: (line) => ({ kind: 'lines', lines: commandCompletions(line, data.completion) }),
    hint: (line) => commandHint(line, data.docs),
  };
}

/** A line editor drawing on a model screen; `type` feeds it what xterm.js would report, key by key. */
export function editorOnScreen(opts: { cols?: number; prompt?: string; assist?: LineAssist | null; history?: string[] } = {}) {
  const cols = opts.cols ?? 80;
  const screen = new Screen(cols);
  const editor = new LineEditor((s) => screen.write(s), cols);
  editor.setAssist(opts.assist === undefined ? redisCliAssistNow() : opts.assist);
  for (const line of opts.history ?? []) editor.addHistory(line);
  editor.start(opts.prompt ?? '127.0.0.1:6379> ');
  const events: EditorEvent[] = [];
  /** Each call is one onData report: "\t" alone is the Tab key, as xterm.js sends it. */
  const type = (...reports: string[]): void => {
    for (const data of reports) {
      for (const k of parseKeys(data)) {
        const e = editor.handle(k);
        if (e !== null) events.push(e);
      }
    }
  };
  return { screen, editor, events, type };
}
