/**
 * The services contract between a redis-server process and its modules:
 * every module's hooks run the same way, in the order the modules were
 * added, and the shutdown unwinds them in the reverse order.
 */
import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { RedisProcess } from '../../../emulator/process/redis-process.js';
import type { LoadOutcome, ProcessModule, ProcessServices, ShutdownRequest } from '../../../emulator/process/services.js';
import { Snapshots } from '../../../emulator/persistence/snapshots.js';
import { AofEngine } from '../../../emulator/persistence/aof-engine.js';
import { SoftwareWatchdog } from '../../../emulator/process/watchdog.js';

class Recorder implements ProcessModule {
  childActive = false;
  constructor(
    readonly name: string,
    readonly calls: string[],
    readonly p: ProcessServices,
  ) {}
  prepare(): string | null {
    this.calls.push(`${this.name} prepare`);
    return null;
  }
  load(): LoadOutcome | null {
    this.calls.push(`${this.name} load`);
    return null;
  }
  cron(): void {
    if (!this.calls.includes(`${this.name} cron`)) this.calls.push(`${this.name} cron`);
  }
  joinShutdown(): boolean {
    this.calls.push(`${this.name} join`);
    return false;
  }
  holdShutdown(_r: ShutdownRequest, resume: () => void): boolean {
    this.calls.push(`${this.name} hold`);
    // The first module to stop waits a little, as replication waits for replicas.
    if (this.name !== 'second') return false;
    this.p.after(5_000, () => {
      this.calls.push(`${this.name} resume`);
      resume();
    });
    return true;
  }
  stop(): void {
    this.calls.push(`${this.name} stop`);
  }
  shutdown(_r: ShutdownRequest, next: () => void): boolean {
    this.calls.push(`${this.name} shutdown`);
    next();
    return true;
  }
  exit(): void {
    this.calls.push(`${this.name} exit`);
  }
}

function start(): { world: World; proc: RedisProcess; calls: string[]; first: Recorder } {
  const world = new World({ seed: 5 });
  world.addHost('A', 'metal');
  const host = world.host('A');
  const proc = host.spawn(new RedisProcess(host, ['redis-server', '*:6379'], { config: { save: '' } }));
  const calls: string[] = [];
  const first = proc.addModule((s) => new Recorder('first', calls, s));
  proc.addModule((s) => new Recorder('second', calls, s));
  expect(proc.start()).toBe(true);
  return { world, proc, calls, first };
}

describe('the services contract of a process', () => {
  it('has the snapshot engine, the AOF, replication and the software watchdog as its modules', () => {
    const { proc } = start();
    expect(proc.module(Snapshots)).toBe(proc.snapshots);
    expect(proc.module(AofEngine)).toBe(proc.server.aof);
    expect(proc.module(SoftwareWatchdog)).not.toBeNull();
    expect(proc.modules).toHaveLength(6);
  });

  it('runs the start and serverCron hooks in the order the modules were added', () => {
    const { world, calls } = start();
    world.advance(200);
    expect(calls).toEqual(['first prepare', 'second prepare', 'first load', 'second load', 'first cron', 'second cron']);
  });

  it('unwinds a shutdown in the reverse order, one phase after the other, waiting for a module that holds it', () => {
    const { world, proc, calls } = start();
    world.advance(10);
    calls.length = 0;
    proc.signal('TERM');
    world.advance(1);
    expect(calls).toEqual(['second join', 'first join', 'second hold']);
    expect(proc.alive).toBe(true);
    world.advance(20);
    expect(calls.slice(3)).toEqual([
      'second resume',
      'first hold',
      'second stop',
      'first stop',
      'second shutdown',
      'first shutdown',
      'first exit',
      'second exit',
    ]);
    expect(proc.alive).toBe(false);
  });

  it('counts a forked child of any module as the one child Redis allows', () => {
    const { proc, first } = start();
    expect(proc.hasActiveChild()).toBe(false);
    first.childActive = true;
    expect(proc.hasActiveChild()).toBe(true);
    // The snapshot engine waits for it: BGSAVE cannot fork now.
    expect(proc.snapshots.bgsave()).toBe('error');
  });
});
