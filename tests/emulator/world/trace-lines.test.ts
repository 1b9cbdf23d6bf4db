import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import type { Redis } from '../../../emulator/client-library/redis.js';

/** A server on A and a client on app, over the lan. */
function clientOfA(seed: number): { world: World; r: Redis } {
  const world = new World({ seed });
  world.addHost('A', 'core2duo');
  world.addHost('app');
  world.link('app', 'A', 'lan');
  world.startRedis('A');
  return { world, r: world.connect({ from: 'app', to: 'A:6379' }) };
}

describe("the trace's acknowledgements", () => {
  it('records each reply that acknowledged a write to a key, whatever the spelling of its name, and nothing for reads, keyless writes, errors or unknown commands', async () => {
    const { world, r } = clientOfA(5);
    await world.settle(r.call('SET', 'k', 'v'));
    await world.settle(r.call('sEt', 'k', 'w"x'));
    await world.settle(r.call('hset', 'h', 'f', '1'));
    await world.settle(r.call('GET', 'k'));
    await world.settle(r.call('FLUSHALL').then(() => r.call('INCR', 'n')));
    await world.settle(r.call('LPUSH', 'n', 'x').catch(() => null));
    await world.settle(r.call('NOSUCHCOMMAND', 'k').catch(() => null));
    await world.settle(r.pipeline().call('ZADD', 'z', '1', 'm').call('zincrby', 'z', '-1', 'm').exec());
    await world.settle(r.multi().call('SET', 'a', '1').call('GET', 'a').call('DEL', 'a').exec());
    const acks = world.trace.find('ack').map((e) => e.text);
    expect(acks).toEqual([
      'A:6379 master 0 "OK" ["SET","k","v"]',
      'A:6379 master 0 "OK" ["sEt","k","w\\"x"]',
      'A:6379 master 0 "1" ["hset","h","f","1"]',
      'A:6379 master 0 "1" ["INCR","n"]',
      'A:6379 master 0 "1" ["ZADD","z","1","m"]',
      'A:6379 master 0 "0" ["zincrby","z","-1","m"]',
      'A:6379 master 0 "OK" ["SET","a","1"]',
      'A:6379 master 0 "1" ["DEL","a"]',
    ]);
  });
});

describe("the trace's command lines", () => {
  it('name the client and quote the first eight arguments as JSON, each cut at 40 bytes', async () => {
    const { world, r } = clientOfA(3);
    await world.settle(r.call('SET', 'k"\\', 'x'.repeat(41)));
    await world.settle(r.call('RPUSH', 'l', '1', '2', '3', '4', '5', '6', '7', '8'));
    await world.settle(r.call('PING'));
    const lines = world.trace.find('cmd', 'A').map((e) => e.text);
    const id = lines[0]!.split(' ')[0];
    expect(lines).toEqual([`${id} "SET" "k\\"\\\\" "${'x'.repeat(40)}..."`, `${id} "RPUSH" "l" "1" "2" "3" "4" "5" "6" ... (10 args)`, `${id} "PING"`]);
  });
});
