import { describe, expect, it } from 'vitest';
import { storeHarness } from '../store-harness.js';

describe("the page's terminal in subscribed mode", () => {
  it('prints what another terminal publishes as it arrives, and Ctrl-C gives the prompt back', async () => {
    const h = storeHarness();
    const listener = h.open(undefined, 80);
    const publisher = h.open(undefined, 80);
    await h.run(50);
    listener.session.input('SUBSCRIBE news\r');
    await h.run(100);
    publisher.session.input('PUBLISH news "hello there"\r');
    await h.run(100);
    publisher.session.input('PUBLISH elsewhere x\r');
    await h.run(100);
    expect(publisher.lines()).toContain('(integer) 1');
    expect(listener.lines()).toEqual([
      'redis:6379> SUBSCRIBE news',
      'Reading messages... (press Ctrl-C to quit)',
      '1) "subscribe"',
      '2) "news"',
      '3) (integer) 1',
      '1) "message"',
      '2) "news"',
      '3) "hello there"',
    ]);
    listener.session.input('\x03');
    await h.run(100);
    listener.session.input('PUBSUB NUMSUB news\r');
    await h.run(100);
    // The subscription went with the connection redis-cli dropped.
    expect(listener.lines().slice(-4)).toEqual(['redis:6379> PUBSUB NUMSUB news', '1) "news"', '2) (integer) 0', 'redis:6379>']);
  });
});
