import { describe, expect, it } from 'vitest';
import { World, type WorldCheckpoint } from '../../../emulator/world/world.js';
import { encodeReply } from '../../../emulator/resp/encode.js';

/** A script of actions and time passing, applied in two halves. */
function firstHalf(world: World): void {
  world.addHost('A', 'core2duo');
  world.addHost('B', 'kvm');
  world.addHost('app', 'metal');
  world.link('app', 'A', 'lan');
  world.link('app', 'B', 'vpn');
  world.startRedis('A');
  world.startRedis('B');
  world.openSession('t1', 'app', 'A:6379');
  world.openSession('t2', 'app', 'A:6379');
  world.openSession('t3', 'app', 'B:6379');
  world.send('t1', ['SET', 'k', '1', 'PX', '1500']);
  world.send('t2', ['BLPOP', 'q', '3']);
  for (let i = 0; i < 20; i++) world.send('t3', ['RPUSH', 'list', String(i)]);
  world.advance(5);
  world.send('t1', ['INCR', 'k']);
  world.partition('app', 'B');
  world.send('t3', ['LLEN', 'list']);
  world.kernel.runUntil(() => world.sessions.get('t1')!.pending === 0, { maxMs: 10 });
  world.send('t1', ['RPUSH', 'q', 'job']);
}

function secondHalf(world: World): void {
  world.advance(700);
  world.heal();
  world.send('t1', ['GET', 'k']);
  world.advance(2000);
  world.send('t1', ['GET', 'k']);
  world.signal('B', world.redis('B')!.pid, 'KILL');
  world.powerOff('A');
  world.advance(100);
  world.powerOn('A');
  world.send('t1', ['PING']);
  world.advance(5000);
}

function transcript(world: World): string {
  let out = '';
  for (const [id, s] of world.sessions) {
    for (const e of s.events) out += `${id} ${e.t} ${e.kind} ${e.reply === undefined ? e.error : JSON.stringify(encodeReply(e.reply, 2))}\n`;
  }
  return out;
}

describe('checkpoints', () => {
  it('a restored world continues exactly as the original', () => {
    const original = new World({ seed: 9 });
    firstHalf(original);
    const cp: WorldCheckpoint = JSON.parse(JSON.stringify(original.checkpoint()));
    expect(cp.complete).toBe(true);
    secondHalf(original);

    const restored = World.restore(cp);
    expect(restored.kernel.now).toBe(cp.nowUs);
    secondHalf(restored);

    expect(restored.trace.hash()).toBe(original.trace.hash());
    expect(transcript(restored)).toBe(transcript(original));
    // The story happened: the blocked pop was served, the key expired, the host came back empty.
    const t = transcript(original);
    expect(t).toContain('"*2\\r\\n$1\\r\\nq\\r\\n$3\\r\\njob\\r\\n"');
    expect(t).toContain('t1');
    expect(original.trace.find('power-loss', 'A').length).toBeGreaterThan(0);
  });

  it('the same actions with no checkpoint give the same history as checkpoint and restore', () => {
    const straight = new World({ seed: 9 });
    firstHalf(straight);
    secondHalf(straight);
    const a = new World({ seed: 9 });
    firstHalf(a);
    const b = World.restore(a.checkpoint());
    secondHalf(b);
    expect(b.trace.hash()).toBe(straight.trace.hash());
  });

  it('a world driven by client-library code says its checkpoint is incomplete', () => {
    const w = new World({ seed: 1 });
    w.addHost('A');
    w.startRedis('A');
    w.connect({ from: 'A', to: 'A:6379' });
    expect(w.checkpoint().complete).toBe(false);
  });

  it('programs replay through registered handlers', () => {
    const setup = (w: World) =>
      w.registerProgram('fill', (world, args) => {
        const n = args as number;
        for (let i = 0; i < n; i++) world.send('s', ['SET', `k${i}`, 'v']);
      });
    const w = new World({ seed: 2 });
    setup(w);
    w.addHost('A');
    w.startRedis('A');
    w.openSession('s', 'A', 'A:6379');
    w.apply({ kind: 'program', name: 'fill', args: 50 });
    w.advance(10);
    const r = World.restore(w.checkpoint(), setup);
    expect(r.redis('A')!.server.dbs[0]!.size).toBe(50);
    expect(r.trace.hash()).toBe(w.trace.hash());
  });
});
