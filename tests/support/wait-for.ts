/**
 * Polls a probe until it answers, for tests that watch real processes
 * (servers, sentinels) reach a state: the deadline only ends a wait that
 * would otherwise never end; nothing is judged by how long it took.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not reached in time: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
