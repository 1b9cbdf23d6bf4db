import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** How many lines the history keeps, like linenoise's default. */
export const HISTORY_MAX_LINES = 100;

/**
 * Where the terminal keeps its history: REDISWORKBOOK_HISTFILE if set
 * ("/dev/null" turns the file off, as REDISCLI_HISTFILE does for redis-cli),
 * else ~/.redisworkbook_history.
 */
export function historyPath(env: NodeJS.ProcessEnv = process.env): string | null {
  const override = env.REDISWORKBOOK_HISTFILE;
  if (override !== undefined && override !== '') return override === '/dev/null' ? null : override;
  return join(homedir(), '.redisworkbook_history');
}

/** The saved lines, oldest first; none when the file is missing or unreadable. */
export function loadHistory(path: string | null): string[] {
  if (path === null) return [];
  try {
    return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').slice(-HISTORY_MAX_LINES);
  } catch {
    return [];
  }
}

/** Saves the lines (oldest first); a history that cannot be written is not worth an error. */
export function saveHistory(path: string | null, lines: readonly string[]): void {
  if (path === null) return;
  try {
    writeFileSync(path, lines.slice(-HISTORY_MAX_LINES).map((l) => l + '\n').join(''), { mode: 0o600 });
  } catch {
    // Read-only home directories are common in containers.
  }
}
