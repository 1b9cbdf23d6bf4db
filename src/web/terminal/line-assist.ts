import type { WordCompletion } from '../../../emulator/redis-cli/index.js';

/**
 * What Tab offers: whole lines that Tab cycles through, as redis-cli's
 * linenoise does, or choices for the word before the cursor, which Tab
 * completes as far as they agree and lists on a second press, as bash does.
 */
export type Completion = { readonly kind: 'lines'; readonly lines: readonly string[] } | ({ readonly kind: 'word' } & WordCompletion);

/** The program's help for the line being typed: Tab completion and the grey hint after the line. */
export interface LineAssist {
  complete(line: string, cursor: number): Completion;
  /** The grey text shown after the line, or null for none. */
  hint(line: string): string | null;
  /** Settles once what completion and hints read has been loaded; until then they offer nothing. */
  readonly ready?: Promise<void>;
}
