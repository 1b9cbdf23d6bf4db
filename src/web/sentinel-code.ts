import { loadOnce } from './load-once.js';

export type SentinelParts = typeof import('./sentinel-parts.js');

const parts = loadOnce<SentinelParts>(() => import('./sentinel-parts.js'));

/** Loads Sentinel's code (once; later calls share the first load). */
export function loadSentinelParts(): Promise<SentinelParts> {
  return parts.load();
}

/**
 * Whether a shell line may start Sentinel (`redis-sentinel`, `redis-server
 * ... --sentinel`, a script that does): its code is then loaded and
 * registered before the line runs, so the start happens within the line,
 * where a replay of the line does it too.
 */
export function lineMayStartSentinel(line: string): boolean {
  return /sentinel/i.test(line);
}
