/**
 * A front of the door: redis-cli's parts a terminal uses besides its REPL
 * (repl.ts): how it prints a reply, the link it talks through, Tab
 * completion and the grey argument hints. Its help table (assist-data.ts)
 * loads apart, in a chunk of its own; the shell's own completion comes with
 * the shell (emulator/programs/shell-parts.ts).
 */
export { formatReply, repr, type OutputMode } from './format.js';
export { CLOSED, type CliLink } from './link.js';
export { commandCompletions } from './completion.js';
export { commandHint } from './hints.js';
export type { DirEntry, ShellView, WordCompletion } from './shell-completion.js';
