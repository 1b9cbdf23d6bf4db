import { describe, expect, it } from 'vitest';
import { World } from '../../../emulator/world/world.js';
import { WireRecorder, WIRE_HEAD_BYTES } from '../../../emulator/sim/wire.js';
import type { Socket } from '../../../emulator/sim/network.js';

/**
 * A string written to a simulated socket travels as it is and becomes
 * bytes only for a reader of bytes: a reader of byte strings (onText) gets
 * the string itself, and readers of both kinds see the same bytes.
 */
function world(): { world: World; accepted: Socket[] } {
  const w = new World({ seed: 3 });
  w.addHost('a', 'metal');
  w.addHost('b', 'metal');
  w.link('a', 'b', 'lan');
  const accepted: Socket[] = [];
  w.host('b').listen(7000, (s) => accepted.push(s));
  return { world: w, accepted };
}

function open(w: World, accepted: Socket[]): Socket {
  const s = w.network.connect(w.host('a'), 'b', 7000);
  const n = accepted.length;
  w.runUntil(() => s.state === 'open' && accepted.length === n + 1);
  return s;
}

/** Every byte value, then a long run: longer than a chunk of the network (64 KB). */
const SENT = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i)).join('') + 'abcdefgh'.repeat(20_000);

describe('strings on a simulated socket', () => {
  it('a reader of byte strings gets what was written as a string, cut in chunks, and a reader of bytes the same bytes', () => {
    const { world: w, accepted } = world();
    const toText = open(w, accepted);
    const toBytes = open(w, accepted);
    const texts: string[] = [];
    const bytes: number[] = [];
    accepted[0]!.onText = (s) => texts.push(s);
    accepted[1]!.onData = (d) => bytes.push(...d);
    toText.write(SENT);
    toBytes.write(SENT);
    w.runUntil(() => accepted[0]!.bytesIn === SENT.length && accepted[1]!.bytesIn === SENT.length);
    expect(texts.length).toBe(Math.ceil(SENT.length / 65536));
    expect(texts.join('')).toBe(SENT);
    expect(bytes.length).toBe(SENT.length);
    expect(bytes.every((b, i) => b === SENT.charCodeAt(i))).toBe(true);
  });

  it('bytes written as an array come to a reader of byte strings as the byte string of them', () => {
    const { world: w, accepted } = world();
    const s = open(w, accepted);
    const texts: string[] = [];
    accepted[0]!.onText = (t) => texts.push(t);
    s.write(Uint8Array.from({ length: 256 }, (_, i) => 255 - i));
    w.runUntil(() => texts.length === 1);
    expect(texts[0]).toBe(Array.from({ length: 256 }, (_, i) => String.fromCharCode(255 - i)).join(''));
  });

  it('two sockets handed the same string each get all of its bytes, and the message view its head', () => {
    const { world: w, accepted } = world();
    w.network.wire = new WireRecorder();
    const one = open(w, accepted);
    const two = open(w, accepted);
    const got: number[][] = [[], []];
    accepted[0]!.onData = (d) => got[0]!.push(...d);
    accepted[1]!.onData = (d) => got[1]!.push(...d);
    const stream = '*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n'.repeat(5);
    one.write(stream);
    two.write(stream);
    w.runUntil(() => accepted[1]!.bytesIn === stream.length && accepted[0]!.bytesIn === stream.length);
    for (const g of got) expect(String.fromCharCode(...g)).toBe(stream);
    const pieces = w.network.wire.pieces().filter((p) => p.bytes === stream.length);
    expect(pieces.map((p) => p.head)).toEqual([stream.slice(0, WIRE_HEAD_BYTES), stream.slice(0, WIRE_HEAD_BYTES)]);
  });
});
