import type { SimEvent } from '../sim/kernel.js';
import type { ProcessModule, ProcessServices } from './services.js';

/**
 * Redis's software watchdog (watchdog-period, src/debug.c): a timer that
 * each serverCron sets `watchdog-period` milliseconds ahead. While the
 * thread keeps coming back to serverCron the timer never goes off; when
 * it is stuck longer than that (a long command, DEBUG SLEEP, a blocking
 * load), the alarm signal arrives and its handler writes a report to the
 * log. Redis's report holds the thread's stack; a simulated thread has
 * none, so it is the report of a build without backtrace support.
 */
export class SoftwareWatchdog implements ProcessModule {
  private alarm: SimEvent | null = null;

  constructor(private readonly p: ProcessServices) {
    p.server.config.onApply('watchdog-period', () => {
      this.apply();
      return null;
    });
  }

  /** initServer applies the configured period. */
  prepare(): null {
    this.apply();
    return null;
  }

  /**
   * serverCron sets the timer again. Loading a dataset (at start, or a
   * replica's load that is not asynchronous) keeps Redis's thread away
   * from serverCron until it is done, so then the timer runs on.
   */
  cron(): void {
    const period = this.period();
    const loading = this.p.server.stats.persistence;
    if (period !== 0 && !(loading.loading && !loading.asyncLoading)) this.schedule(period);
  }

  exit(): void {
    this.p.kernel.cancel(this.alarm);
    this.alarm = null;
  }

  private period(): number {
    return this.p.server.config.getNumber('watchdog-period');
  }

  /**
   * applyWatchdogPeriod: 0 stops the timer; a period shorter than two
   * serverCron intervals is raised to that, since the timer could then go
   * off between two of them, and the timer is set from now.
   */
  private apply(): void {
    let period = this.period();
    if (period === 0) {
      this.exit();
      return;
    }
    const minPeriod = Math.trunc(1000 / this.p.server.config.getNumber('hz')) * 2;
    if (period < minPeriod) {
      period = minPeriod;
      this.p.server.config.set('watchdog-period', String(period), true);
    }
    this.schedule(period);
  }

  /** watchdogScheduleSignal: one alarm, `periodMs` from now, replacing any set before. */
  private schedule(periodMs: number): void {
    const kernel = this.p.kernel;
    kernel.cancel(this.alarm);
    this.alarm = kernel.after(periodMs * 1000, () => {
      this.alarm = null;
      if (!this.p.alive) return;
      // watchdogSignalHandler, in a build without backtrace().
      this.p.logFromSignalHandler('\n--- WATCHDOG TIMER EXPIRED ---');
      this.p.logFromSignalHandler('Sorry: no support for backtrace().');
      this.p.logFromSignalHandler('--------\n');
    });
  }
}
