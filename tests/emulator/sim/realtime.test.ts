import { describe, expect, it } from 'vitest';
import { Kernel } from '../../../emulator/sim/kernel.js';
import { RealtimeDriver } from '../../../emulator/sim/realtime.js';

function setup(speed = 1) {
  const k = new Kernel({ seed: 1 });
  let wall = 1000;
  const d = new RealtimeDriver(k, () => wall, { speed });
  return { k, d, tickAt: (ms: number) => ((wall = ms), d.tick()) };
}

describe('the realtime driver', () => {
  it('virtual time follows the wall clock', () => {
    const { k, tickAt } = setup();
    const t0 = k.now;
    const fired: number[] = [];
    k.after(5000, () => fired.push(k.now - t0));
    k.after(20_000, () => fired.push(k.now - t0));
    tickAt(1010);
    expect(fired).toEqual([5000]);
    expect(k.now - t0).toBe(10_000);
    tickAt(1030);
    expect(fired).toEqual([5000, 20_000]);
  });

  it('runs at 0.1x to 100x and changes speed without a jump', () => {
    const { k, d, tickAt } = setup(10);
    const t0 = k.now;
    tickAt(1100);
    expect(k.now - t0).toBe(1_000_000);
    d.speed = 0.1;
    tickAt(2100);
    expect(k.now - t0).toBe(1_100_000);
    expect(() => (d.speed = 1000)).toThrow(RangeError);
  });

  it('pauses, steps, and says when to wake', () => {
    const { k, d, tickAt } = setup();
    const t0 = k.now;
    k.after(50_000, () => {});
    expect(d.nextWakeMs()).toBe(50);
    d.pause();
    tickAt(5000);
    expect(k.now).toBe(t0);
    expect(d.nextWakeMs()).toBeNull();
    d.step(60);
    expect(k.now - t0).toBe(60_000);
    d.resume();
    tickAt(5010);
    expect(k.now - t0).toBe(70_000);
  });
});

describe('a tick over its budget', () => {
  /** A world whose every event takes 30 ms of wall time, ticked at wall 1100 ms. */
  function slow(keepPace: boolean) {
    const k = new Kernel({ seed: 1 });
    let wall = 1000;
    const d = new RealtimeDriver(k, () => wall, { keepPace });
    d.maxTickMs = 40;
    const t0 = k.now;
    for (let i = 1; i <= 10; i++) k.after(i * 1000, () => (wall += 30));
    wall = 1100;
    d.tick();
    return { k, d, t0, setWall: (ms: number) => (wall = ms) };
  }

  it('hands the page back after the budget and slows the world rather than freezing it', () => {
    const { k, d, t0, setWall } = slow(false);
    // Two 30 ms events ran; the world then took the wall clock as its new anchor.
    expect(k.now - t0).toBe(2000);
    setWall(1170);
    d.tick();
    expect(k.now - t0).toBeLessThan(10_000);
  });

  it('with keepPace, hands control back too, and the next ticks catch up with the wall clock', () => {
    const { k, d, t0, setWall } = slow(true);
    expect(k.now - t0).toBe(2000);
    setWall(2000);
    while (d.tick() !== 0);
    expect(k.now - t0).toBeGreaterThanOrEqual(10_000);
  });
});
