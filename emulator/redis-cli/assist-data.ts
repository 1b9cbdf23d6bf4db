import { CONF, CONFIG_PARAMS } from '../server/config-params.js';
import type { CompletionTable, ConfigName } from './completion.js';
import { helpEntries } from './help.js';
import type { CommandDoc } from './hints.js';

/** What redis-cli's Tab completion and grey hints read, built once. */
export interface RedisCliAssistData {
  readonly docs: readonly CommandDoc[];
  readonly completion: CompletionTable;
}

let built: RedisCliAssistData | null = null;

/**
 * The help table as hints and completion need it, with the parameters
 * CONFIG GET * lists. The web terminal loads this module on its own, after
 * the page, so the command docs stay out of the page's first download.
 *
 *   const { docs } = redisCliAssistData();
 *   commandHint('SET k', docs);
 */
export function redisCliAssistData(): RedisCliAssistData {
  if (built !== null) return built;
  const entries = helpEntries();
  const config: ConfigName[] = CONFIG_PARAMS.filter((p) => (p.flags & CONF.HIDDEN) === 0)
    .map((p) => ({ name: p.name, values: p.kind === 'bool' ? ['yes', 'no'] : p.choices && [...new Set(p.choices)].sort() }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  built = {
    docs: entries.map((e) => ({ words: e.words, params: e.params })),
    completion: {
      commands: entries.map((e) => e.full),
      groups: [...new Set(entries.map((e) => '@' + e.group))].sort(),
      config,
    },
  };
  return built;
}
