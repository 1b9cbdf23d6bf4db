import fc from 'fast-check';

/**
 * fast-check's run options for a randomized differential property: a fixed
 * seed and number of runs, and a failure that names the FC_SEED to
 * reproduce it with (`seedOffset` is what the property adds to FC_SEED).
 */
export function randomRunOptions(what: string, seed: number, runs: number, seedOffset = 0): fc.Parameters<unknown> {
  return {
    seed,
    numRuns: runs,
    // The error thrown by the failing run says what differed.
    includeErrorInReport: true,
    reporter: (out) => {
      if (out.failed) {
        throw new Error(`${what} failed. Reproduce with FC_SEED=${out.seed - seedOffset} (path ${out.counterexamplePath}).\n${fc.defaultReportMessage(out)}`);
      }
    },
  };
}
