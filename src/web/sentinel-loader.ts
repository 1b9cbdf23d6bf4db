import type { RecordedAction } from '../../emulator/world/world.js';
import { SHELL_PROGRAM } from '../../emulator/programs/recorded-actions.js';
import { lineMayStartSentinel } from './sentinel-code.js';

export { loadSentinelParts } from './sentinel-code.js';

/**
 * Whether replaying these actions needs Sentinel's code registered first:
 * a sentinel started, a Sentinel client opened, or a shell line that may
 * start one.
 */
export function replayNeedsSentinel(actions: readonly RecordedAction[]): boolean {
  return actions.some(({ action: a }) => {
    if (a.kind === 'spawn') return a.program === 'redis-sentinel';
    if (a.kind === 'openSentinelClient') return true;
    if (a.kind !== 'program' || a.name !== SHELL_PROGRAM) return false;
    const args = a.args as { op?: string; line?: string };
    return args.op === 'line' && typeof args.line === 'string' && lineMayStartSentinel(args.line);
  });
}
