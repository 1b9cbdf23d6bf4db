import { performance } from 'node:perf_hooks';
import { RealtimeDriver } from '../../emulator/sim/index.js';
import type { World } from '../../emulator/world/world.js';
import type { Clock } from '../../emulator/index.js';

/**
 * Drives a world in real time from Node: virtual time follows the wall
 * clock (times `speed`), one timer sleeps until the next event is due, and
 * `poke()` runs what became due after outside input (bytes from a real
 * client) without waiting for the timer.
 */
export class NodeWorldDriver {
  readonly driver: RealtimeDriver;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private immediate: ReturnType<typeof setImmediate> | null = null;
  private wakeAt = Infinity;
  private stopped = false;
  /** Called when an event throws nothing but the trace records a fault; for logs. */
  onTick: (() => void) | null = null;

  constructor(
    readonly world: World,
    opts: { speed?: number; clock?: Clock } = {},
  ) {
    // At the wall clock's own pace, virtual time is the machine's clock to the microsecond.
    const epochUs = (opts.speed ?? 1) === 1 ? opts.clock?.nowUs.bind(opts.clock) : undefined;
    this.driver = new RealtimeDriver(world.kernel, () => performance.now(), { speed: opts.speed ?? 1, keepPace: true, epochUs });
  }

  start(): void {
    this.stopped = false;
    this.poke();
  }

  stop(): void {
    this.stopped = true;
    this.clear();
  }

  private clear(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.immediate !== null) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
    this.wakeAt = Infinity;
  }

  /**
   * Outside input: brings virtual time up to the wall clock (running what
   * became due), runs `fn`, and reschedules only if `fn` changed when the
   * next event is due.
   */
  input(fn: () => void): void {
    if (this.stopped) {
      fn();
      return;
    }
    const k = this.world.kernel;
    this.driver.tick();
    fn();
    if (k.nextEventTime() !== this.scheduledFor) this.poke();
  }

  /** When the timer set last is due, in virtual time. */
  private scheduledFor = NaN;

  /** Runs every event due now and sleeps until the next one. */
  poke(): void {
    if (this.stopped) return;
    this.driver.tick();
    this.onTick?.();
    this.scheduledFor = this.world.kernel.nextEventTime();
    const wait = this.driver.nextWakeMs();
    if (wait === null) {
      this.clear();
      return;
    }
    const at = performance.now() + wait;
    if ((this.timer !== null || this.immediate !== null) && at >= this.wakeAt - 0.5) return;
    this.clear();
    this.wakeAt = at;
    const fire = (): void => {
      this.timer = null;
      this.immediate = null;
      this.wakeAt = Infinity;
      this.poke();
    };
    // Node's timers have a 1 ms grain; sooner events run on the next turn.
    if (wait < 1) this.immediate = setImmediate(fire);
    else {
      this.timer = setTimeout(fire, wait);
      this.timer.unref();
    }
  }
}
