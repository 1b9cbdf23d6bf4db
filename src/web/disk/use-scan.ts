import { useEffect, useState } from 'react';
import type { RecordPager } from './record-pager.js';

/** Work per slice of the background scan: well under a frame, far under the 50 ms a long task is. */
const SLICE_MS = 8;
/** How often the summary re-renders while the scan goes on. */
const PUBLISH_MS = 200;

/**
 * Scans a file's records in the background, a slice per task, and
 * re-renders now and then to show what the scan has found. Stops when the
 * component goes away.
 */
export function useScan<R, S>(pager: RecordPager<R, S>): { scanned: number; done: boolean } {
  const [, setTick] = useState(0);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let published = performance.now();
    const step = (): void => {
      const deadline = performance.now() + SLICE_MS;
      const done = pager.scan(() => performance.now() < deadline);
      const now = performance.now();
      if (done || now - published >= PUBLISH_MS) {
        published = now;
        setTick((t) => t + 1);
      }
      if (!done) timer = setTimeout(step, 0);
    };
    timer = setTimeout(step, 0);
    return () => clearTimeout(timer);
  }, [pager]);
  return { scanned: pager.scanned, done: pager.scanDone };
}
