import { describe, expect, it } from 'vitest';
import { PushReply } from '../../../emulator/resp/reply.js';
import { setup } from './cluster.js';

/** The pub/sub messages a session received, as [kind, ...fields] lists. */
function messages(replies: readonly unknown[]): unknown[][] {
  return replies.filter((r): r is unknown[] => Array.isArray(r) || r instanceof PushReply).map((r) => (r instanceof PushReply ? r.items : r));
}

describe('pub/sub across replication', () => {
  it('publish message to master and receive on replica (SPUBLISH and PUBLISH)', async () => {
    const { world, run, until, linkUp } = setup();
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    const sub = world.openSession('sub', 'app', 'B:6379');
    world.send('sub', ['SSUBSCRIBE', 'chan1']);
    world.send('sub', ['SUBSCRIBE', 'chan2']);
    world.advance(50);
    expect(await run('A', 'SPUBLISH', 'chan1', 'hello')).toBe(0);
    expect(await run('A', 'PUBLISH', 'chan2', 'world')).toBe(0);
    world.advance(100);
    expect(messages(sub.replies())).toEqual([
      ['ssubscribe', 'chan1', 1],
      ['subscribe', 'chan2', 1],
      ['smessage', 'chan1', 'hello'],
      ['message', 'chan2', 'world'],
    ]);
  });

  it('a replica publishes keyspace events for the writes it applies', async () => {
    const { world, run, until, linkUp } = setup({ config: { 'notify-keyspace-events': 'KEA' } });
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    const events = world.openSession('events', 'app', 'B:6379');
    world.send('events', ['PSUBSCRIBE', '__keyevent@0__:*']);
    world.advance(50);
    await run('A', 'LPUSH', 'l', 'x');
    world.advance(100);
    expect(messages(events.replies()).slice(1)).toEqual([
      ['pmessage', '__keyevent@0__:*', '__keyevent@0__:lpush', 'l'],
    ]);
  });
});
