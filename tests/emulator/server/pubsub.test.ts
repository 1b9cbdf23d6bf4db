import { describe, expect, it } from 'vitest';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { pubsubMemOverhead } from '../../../emulator/server/pubsub.js';
import { DirectClient } from '../../../emulator/client-library/direct.js';
import { FramesReply, PushReply, type Reply } from '../../../emulator/resp/reply.js';

function start() {
  const clock = new ManualClock(1_700_000_000_000_000);
  const server = createServer({ clock });
  return { clock, server, c: server.connect(), other: server.connect() };
}

describe('pub/sub inside the server', () => {
  it('a closed connection leaves its channels, patterns and shard channels', () => {
    const { server, c, other } = start();
    server.execute(c, ['SUBSCRIBE', 'a', 'b']);
    server.execute(c, ['PSUBSCRIBE', 'p*']);
    server.execute(c, ['SSUBSCRIBE', 's']);
    server.disconnect(c);
    expect(server.pubsub.channels.size + server.pubsub.patterns.size + server.pubsub.shardChannels.size).toBe(0);
    expect(server.execute(other, ['PUBLISH', 'a', 'x'])).toBe(0);
  });

  it('a subscriber channel table grows like a dict and keeps its buckets (pubsubMemOverhead)', () => {
    const { server, c } = start();
    expect(pubsubMemOverhead(c)).toBe(0);
    server.execute(c, ['SUBSCRIBE', 'a']);
    expect(pubsubMemOverhead(c)).toBe(24 + 4 * 8);
    server.execute(c, ['SUBSCRIBE', 'b', 'c', 'd', 'e']);
    expect(pubsubMemOverhead(c)).toBe(5 * 24 + 8 * 8);
    server.execute(c, ['UNSUBSCRIBE', 'a', 'b', 'c', 'd', 'e']);
    expect(pubsubMemOverhead(c)).toBe(8 * 8);
    server.execute(c, ['PSUBSCRIBE', 'x', 'y']);
    expect(pubsubMemOverhead(c)).toBe(2 * 24 + 8 * 8);
  });

  it("a client's own message goes out before its PUBLISH's reply, in RESP3", () => {
    const { server, c } = start();
    server.execute(c, ['HELLO', '3']);
    server.execute(c, ['SUBSCRIBE', 'ch']);
    const reply: Reply = server.execute(c, ['PUBLISH', 'ch', 'm']);
    expect(reply).toBeInstanceOf(FramesReply);
    const frames = (reply as FramesReply).frames;
    expect(frames[0]).toEqual(new PushReply(['message', 'ch', 'm']));
    expect(frames[1]).toBe(1);
  });

  it('a blocking command that parks its client sends the pushes made before it at once', () => {
    const { clock, server, c } = start();
    const sent: Reply[] = [];
    c.onAsyncReply = (r) => sent.push(r);
    server.execute(c, ['HELLO', '3']);
    server.execute(c, ['CONFIG', 'SET', 'notify-keyspace-events', 'Ex']);
    server.execute(c, ['PSUBSCRIBE', '*']);
    server.execute(c, ['DEBUG', 'SET-ACTIVE-EXPIRE', '0']);
    server.execute(c, ['RPUSH', 'k', 'v']);
    server.execute(c, ['PEXPIRE', 'k', '1']);
    clock.advanceUs(10_000);
    // BLPOP's lookup finds the list expired (the expired event), then the client blocks.
    server.execute(c, ['BLPOP', 'k', '0']);
    expect(server.blocking.count).toBe(1);
    expect(sent).toEqual([new PushReply(['pmessage', '*', '__keyevent@0__:expired', 'k'])]);
  });

  it('an in-process client reads a silenced reply as null', async () => {
    const { server } = start();
    const r = new DirectClient(server);
    expect(await r.call('CLIENT', 'REPLY', 'OFF')).toBe(null);
  });
});
