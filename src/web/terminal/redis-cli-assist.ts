import type { RedisCliAssistData } from '../../../emulator/redis-cli/assist-data.js';
import { commandCompletions, commandHint } from '../../../emulator/redis-cli/index.js';
import type { LineAssist } from './line-assist.js';

let data: RedisCliAssistData | null = null;
let loading: Promise<void> | null = null;

/**
 * Loads redis-cli's help table in a chunk of its own, after the page: the
 * command docs are not needed to show the first prompt. A chunk that
 * cannot be loaded (the page went offline before it came) leaves the
 * terminal without hints and completion, and working.
 */
function load(): Promise<void> {
  loading ??= import('../../../emulator/redis-cli/assist-data.js').then(
    (m) => {
      data = m.redisCliAssistData();
    },
    () => {},
  );
  return loading;
}

/**
 * redis-cli's Tab completion and grey argument hints; `hintsOn` follows
 * `:set hints` and `:set nohints`.
 */
export function redisCliAssist(hintsOn: () => boolean): LineAssist {
  return {
    ready: load(),
    complete: (line) => ({ kind: 'lines', lines: data === null ? [] : commandCompletions(line, data.completion) }),
    hint: (line) => (data === null || !hintsOn() ? null : commandHint(line, data.docs)),
  };
}
