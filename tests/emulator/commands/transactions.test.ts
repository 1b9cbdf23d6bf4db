import { describe, expect, it } from 'vitest';
import { ErrorReply, NULL_ARRAY, OK, QUEUED, VerbatimReply, type Reply } from '../../../emulator/resp/reply.js';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';

function start() {
  const clock = new ManualClock();
  const server = createServer({ clock });
  const a = server.connect();
  const b = server.connect();
  const propagated: string[][] = [];
  server.onPropagate((_db, argv) => propagated.push(argv));
  return {
    server,
    clock,
    propagated,
    r1: (...argv: string[]): Reply => server.execute(a, argv),
    r2: (...argv: string[]): Reply => server.execute(b, argv),
  };
}

const message = (r: Reply): string => (r as ErrorReply).message;

describe('MULTI / EXEC', () => {
  it('After successful EXEC key is no longer watched', () => {
    const { r1, r2 } = start();
    r1('SET', 'x', '30');
    r1('WATCH', 'x');
    r1('MULTI');
    r1('PING');
    expect(r1('EXEC')).toEqual([expect.objectContaining({ text: 'PONG' })]);
    r2('SET', 'x', '40');
    r1('MULTI');
    r1('PING');
    expect(r1('EXEC')).not.toBe(NULL_ARRAY);
  });

  it('a command with the wrong arity inside MULTI aborts EXEC', () => {
    const { r1 } = start();
    expect(r1('MULTI')).toBe(OK);
    expect(message(r1('RPUSH', 'l'))).toBe("ERR wrong number of arguments for 'rpush' command");
    expect(r1('SET', 'k', 'v')).toBe(QUEUED);
    expect(message(r1('EXEC'))).toBe('EXECABORT Transaction discarded because of previous errors.');
    expect(r1('EXISTS', 'k')).toBe(0);
    expect(r1('EXISTS', 'l')).toBe(0);
  });

  it('EXEC with arguments aborts the transaction, inside MULTI or not', () => {
    const { r1 } = start();
    const abort = "EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command";
    expect(message(r1('EXEC', 'foo'))).toBe(abort);
    r1('MULTI');
    r1('SET', 'k', 'v');
    expect(message(r1('EXEC', 'foo'))).toBe(abort);
    expect(message(r1('EXEC'))).toBe('ERR EXEC without MULTI');
    expect(r1('EXISTS', 'k')).toBe(0);
  });

  it('EXEC fail on lazy expired WATCHed key', () => {
    const { server, clock, r1 } = start();
    server.activeExpireEnabled = false;
    r1('SET', 'key', '1', 'PX', '100');
    r1('WATCH', 'key');
    clock.advanceMs(200);
    r1('MULTI');
    r1('INCR', 'key');
    expect(r1('EXEC')).toBe(NULL_ARRAY);
  });

  it('WATCH stale keys should not fail EXEC', () => {
    const { server, clock, r1 } = start();
    server.activeExpireEnabled = false;
    r1('SET', 'x', 'foo', 'PX', '1');
    clock.advanceMs(2);
    r1('WATCH', 'x');
    r1('SET', 'x', 'bar');
    r1('MULTI');
    r1('PING');
    expect(r1('EXEC')).toBe(NULL_ARRAY);
    r1('SET', 'y', 'foo', 'PX', '1');
    clock.advanceMs(2);
    r1('WATCH', 'y');
    r1('MULTI');
    r1('PING');
    expect(Array.isArray(r1('EXEC'))).toBe(true);
  });

  it('a transaction with several writes is propagated inside MULTI/EXEC, a single one bare', () => {
    const { r1, propagated } = start();
    r1('MULTI');
    r1('SET', 'a', '1');
    r1('GET', 'a');
    r1('EXEC');
    r1('MULTI');
    r1('SET', 'a', '2');
    r1('EXPIRE', 'a', '-1');
    r1('EXEC');
    expect(propagated).toEqual([['SET', 'a', '1'], ['MULTI'], ['SET', 'a', '2'], ['DEL', 'a'], ['EXEC']]);
  });

  it('DISCARD should UNWATCH all the keys', () => {
    const { r1, r2 } = start();
    r1('SET', 'x', '10');
    r1('WATCH', 'x');
    r1('MULTI');
    r1('DISCARD');
    r2('SET', 'x', '11');
    r1('MULTI');
    r1('INCR', 'x');
    expect(r1('EXEC')).toEqual([12]);
  });
});

describe('EXEC', () => {
  it('the client is still in MULTI state while its queue runs', () => {
    const { r1 } = start();
    r1('MULTI');
    r1('CLIENT', 'INFO');
    r1('SET', 'k', 'v');
    const text = (r: Reply): string => (r instanceof VerbatimReply ? r.text : String(r));
    const [info] = r1('EXEC') as Reply[];
    expect(text(info!)).toMatch(/ flags=x .* multi=2 /);
    expect(text(r1('CLIENT', 'INFO'))).toMatch(/ flags=N .* multi=-1 /);
  });
});
