import type { Kernel } from './kernel.js';

/**
 * The realtime driver: virtual time follows the wall clock times a speed
 * factor, for the terminal and the web page. The emulator cannot read the
 * wall clock itself, so whoever hosts the world passes a function that does
 * and calls `tick()` from its own timer; `nextWakeMs()` says when the next
 * event is due in wall milliseconds, so the host can sleep until then.
 *
 *   const driver = new RealtimeDriver(world.kernel, () => performance.now());
 *   const loop = () => { driver.tick(); setTimeout(loop, Math.min(50, driver.nextWakeMs() ?? 50)); };
 */
export class RealtimeDriver {
  /** Virtual seconds per wall second (0.1 to 100). */
  private rate = 1;
  private paused = false;
  /** The wall time and virtual time of the last re-anchoring. */
  private wallAnchor: number;
  private virtualAnchor: number;
  /** Most wall time one tick may run, so a slow frame does not freeze the page. */
  maxTickMs = 40;
  /**
   * A tick over its budget hands control back without slowing the world:
   * the next ticks catch up with the wall clock. For a server real clients
   * talk to (npm run server), whose clock must be the wall clock's. Without
   * it the world slows down instead (the page stays responsive).
   */
  private readonly keepPace: boolean;
  /**
   * For a server real clients talk to: virtual time is this clock's
   * reading (microseconds since the epoch), exactly, at every tick, so
   * the server's time is the machine's (TIME, expiry deadlines clients
   * compute from their own clocks). Implies keepPace; speed stays 1.
   */
  private readonly epochUs: (() => number) | null;

  constructor(
    readonly kernel: Kernel,
    private readonly wallNowMs: () => number,
    opts: { speed?: number; paused?: boolean; keepPace?: boolean; epochUs?: () => number } = {},
  ) {
    this.epochUs = opts.epochUs ?? null;
    this.keepPace = (opts.keepPace ?? false) || this.epochUs !== null;
    this.wallAnchor = wallNowMs();
    this.virtualAnchor = kernel.now;
    if (opts.speed !== undefined) this.speed = opts.speed;
    if (opts.paused) this.pause();
  }

  get speed(): number {
    return this.rate;
  }

  /** Changes the speed without a jump in virtual time. */
  set speed(x: number) {
    if (!(x >= 0.1 && x <= 100)) throw new RangeError('speed must be between 0.1x and 100x');
    this.reanchor();
    this.rate = x;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  pause(): void {
    if (this.paused) return;
    this.tick();
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.reanchor();
  }

  /** While paused: moves virtual time on by `ms` at once. */
  step(ms: number): void {
    this.kernel.advance(ms);
    this.reanchor();
  }

  private reanchor(): void {
    this.wallAnchor = this.wallNowMs();
    this.virtualAnchor = this.kernel.now;
  }

  /** The virtual time (us) the wall clock says it should be now. */
  target(): number {
    if (this.paused) return this.kernel.now;
    if (this.epochUs !== null) return this.epochUs();
    return this.virtualAnchor + Math.round((this.wallNowMs() - this.wallAnchor) * 1000 * this.rate);
  }

  /**
   * Runs every event due by now. If the events take longer than the frame
   * budget, virtual time falls behind and the driver re-anchors (the world
   * slows down rather than the page freezing). Returns the events run.
   */
  tick(): number {
    if (this.paused) return 0;
    const started = this.wallNowMs();
    const target = this.target();
    const k = this.kernel;
    let n = 0;
    while (k.step(target)) {
      n++;
      // Checked after every event: one event can be long (a saving
      // child's step), and the page must get its frame back in time.
      if (this.wallNowMs() - started > this.maxTickMs) {
        if (!this.keepPace) this.reanchor();
        return n;
      }
    }
    if (target > k.now) k.now = target;
    return n;
  }

  /** Wall milliseconds until the next event is due, or null when there is none. */
  nextWakeMs(): number | null {
    if (this.paused) return null;
    const next = this.kernel.nextEventTime();
    if (next === Infinity) return null;
    return Math.max(0, (next - this.target()) / 1000 / this.rate);
  }
}
