import { describe, expect, it } from 'vitest';
import { ReplyCounter } from '../../../emulator/programs/reply-counter.js';

function bytes(s: string): Uint8Array {
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

/** Feeds `text` in pieces cut at `cuts` and returns what each completed reply was. */
function scan(text: string, cuts: number[] = []): Array<{ end: number; error: string | null; push: boolean }> {
  const rc = new ReplyCounter();
  const out: Array<{ end: number; error: string | null; push: boolean }> = [];
  const edges = [0, ...cuts, text.length];
  for (let k = 0; k + 1 < edges.length; k++) {
    const chunk = bytes(text.slice(edges[k], edges[k + 1]));
    let pos = 0;
    while ((pos = rc.next(chunk, pos)) !== -1) out.push({ end: edges[k]! + pos, error: rc.isError ? rc.errorText : null, push: rc.isPush });
  }
  return out;
}

/** One reply of each kind, as the server would send them. */
const REPLIES = [
  '+OK\r\n',
  ':42\r\n',
  '$3\r\nVXK\r\n',
  '$-1\r\n',
  '*3\r\n$1\r\na\r\n*2\r\n:1\r\n$0\r\n\r\n+x\r\n',
  '*0\r\n',
  '*-1\r\n',
  '-ERR DB index is out of range\r\n',
  '%2\r\n+server\r\n$5\r\nredis\r\n+modules\r\n*0\r\n',
  '_\r\n',
  ',3.5\r\n',
  '#t\r\n',
  '>2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n',
  '!21\r\nSYNTAX invalid syntax\r\n',
  '=15\r\ntxt:Some string\r\n',
];
const MIXED = REPLIES.join('');

describe('RESP reply counter', () => {
  it('finds the end of each reply, RESP2 and RESP3', () => {
    const got = scan(MIXED);
    let end = 0;
    expect(got.map((r) => r.end)).toEqual(REPLIES.map((r) => (end += r.length)));
    expect(got.filter((r) => r.error !== null).map((r) => r.error)).toEqual(['ERR DB index is out of range', 'SYNTAX invalid syntax']);
    expect(got.map((r) => r.push)).toEqual(REPLIES.map((r) => r.startsWith('>')));
  });

  it('gives the same answer however the bytes are split', () => {
    const whole = scan(MIXED);
    for (let cut = 1; cut < MIXED.length; cut++) expect(scan(MIXED, [cut])).toEqual(whole);
    const everyByte = Array.from({ length: MIXED.length - 1 }, (_, i) => i + 1);
    expect(scan(MIXED, everyByte)).toEqual(whole);
  });

  it('counts the elements of array replies for the client CPU model', () => {
    const rc = new ReplyCounter();
    const lrange = '*100\r\n' + '$3\r\nVXK\r\n'.repeat(100);
    expect(rc.next(bytes(lrange), 0)).toBe(lrange.length);
    expect(rc.items).toBe(100);
  });
});
