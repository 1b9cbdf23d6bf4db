import { describe, expect, it } from 'vitest';
import { CLOSED, InProcessLink, ReplyQueue } from '../../../emulator/redis-cli/link.js';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { StatusReply } from '../../../emulator/resp/reply.js';

describe('a connection\'s reply queue', () => {
  it('gives replies in arrival order, to reads made before or after they arrive', async () => {
    const q = new ReplyQueue();
    const early = q.read();
    q.push(1);
    q.push(2);
    q.push(3);
    expect(await early).toBe(1);
    expect(await q.read()).toBe(2);
    expect(await q.read()).toBe(3);
  });

  it('once ended, gives what it received first, then CLOSED; waiting reads get CLOSED', async () => {
    const q = new ReplyQueue();
    const waiting = q.read();
    expect(q.end()).toBe(true);
    expect(await waiting).toBe(CLOSED);
    expect(q.end()).toBe(false);

    const r = new ReplyQueue();
    r.push('a');
    r.end();
    expect(r.ended).toBe(true);
    expect(await r.read()).toBe('a');
    expect(await r.read()).toBe(CLOSED);
  });

  it('is what an in-process link reads: replies in order, CLOSED after QUIT', async () => {
    const link = new InProcessLink(createServer({ clock: new ManualClock() }));
    link.send(['PING']);
    link.send(['ECHO', 'x']);
    link.send(['QUIT']);
    expect(await link.read()).toEqual(new StatusReply('PONG'));
    expect(await link.read()).toBe('x');
    expect(await link.read()).toEqual(new StatusReply('OK'));
    expect(await link.read()).toBe(CLOSED);
    expect(link.closed).toBe(true);
  });
});
