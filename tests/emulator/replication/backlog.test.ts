import { describe, expect, it } from 'vitest';
import { ReplicationBuffer, type BufferCursor } from '../../../emulator/replication/backlog.js';
import { useHostByteCodec } from '../../../emulator/resp/bytes.js';
import { encodeCommand, encodeSelect } from '../../../emulator/resp/encode.js';
import { setup } from './cluster.js';

const cursor = (): BufferCursor => ({ block: null, pos: 0 });

describe('replication buffer', () => {
  it('a block holds 20440 bytes: 16 KB and its header rounded up to a jemalloc size class, less the header', () => {
    const b = new ReplicationBuffer(0, () => 1024 * 1024);
    b.feed('x'.repeat(10));
    expect(b.blockCount).toBe(1);
    // 20480 for the block and 24 for its list node, as mem_total_replication_buffers shows.
    expect(b.memoryBytes).toBe(20504);
    b.feed('y'.repeat(20430));
    expect(b.blockCount).toBe(1);
    b.feed('z');
    expect(b.blockCount).toBe(2);
    expect(b.masterReplOffset).toBe(20441);
    expect(b.histlen).toBe(20441);
    expect(b.firstByteOffset).toBe(1);
  });

  it('a big write gets blocks of at most a sixteenth of the backlog', () => {
    const b = new ReplicationBuffer(0, () => 1024 * 1024);
    b.feed('x'.repeat(200_000));
    // 64 KB plus the header is rounded up to 80 KB: two blocks of 81880
    // bytes; the last is sized for the 36240 bytes left, rounded up to 40 KB.
    expect(b.blockCount).toBe(3);
    expect(b.memoryBytes).toBe(2 * (81920 + 24) + 40960 + 24);
  });

  it('the backlog keeps at least its size, freeing the oldest blocks nobody needs', () => {
    const b = new ReplicationBuffer(0, () => 16384);
    for (let i = 0; i < 10; i++) b.feed('x'.repeat(20440));
    // A block is freed only if what stays still covers the size.
    expect(b.histlen).toBeGreaterThan(16384);
    expect(b.histlen).toBeLessThanOrEqual(16384 + 20440);
    expect(b.firstByteOffset).toBe(b.masterReplOffset - b.histlen + 1);
  });

  it('a replica that has not been sent its bytes keeps the blocks it needs', () => {
    const b = new ReplicationBuffer(0, () => 16384);
    const slow = cursor();
    b.attach(slow);
    for (let i = 0; i < 10; i++) b.feed('x'.repeat(20440));
    expect(b.histlen).toBe(10 * 20440);
    expect(b.take(slow).length).toBe(10 * 20440);
    // Sent: the replica now holds only the last block, and the backlog shrinks back.
    expect(b.histlen).toBeLessThanOrEqual(16384 + 20440);
  });

  it('a reader gets exactly the bytes fed since it was attached, in order', () => {
    const b = new ReplicationBuffer(100, () => 1024 * 1024);
    b.feed('before');
    const r = cursor();
    b.attach(r);
    b.feed('one,');
    b.feed('two,');
    expect(b.take(r)).toBe('one,two,');
    expect(b.hasPending(r)).toBe(false);
    b.feed('three');
    expect(b.hasPending(r)).toBe(true);
    expect(b.take(r)).toBe('three');
    expect(b.masterReplOffset).toBe(100 + 6 + 8 + 5);
  });

  it('a partial resync reads from an offset to the end of the backlog', () => {
    const b = new ReplicationBuffer(0, () => 1024 * 1024);
    b.feed('abcdefghij');
    b.feed('k'.repeat(30000));
    const r = cursor();
    expect(b.cursorAt(5, r)).toBe(30010 - 4);
    const got = b.take(r);
    expect(got.startsWith('efghij')).toBe(true);
    expect(got.length).toBe(30006);
    const end = cursor();
    expect(b.cursorAt(30011, end)).toBe(0);
    expect(b.take(end)).toBe('');
  });

  it('hands readers the strings it was fed, never converting the stream to bytes and back', () => {
    // A host codec counts every conversion of a long run (the loops take the short ones).
    let conversions = 0;
    useHostByteCodec({
      decode: (a, start, end) => (conversions++, String.fromCharCode(...a.subarray(start, end))),
      encodeInto: (s, into, at) => (conversions++, into.set(Array.from(s, (ch) => ch.charCodeAt(0)), at)),
    });
    try {
      const b = new ReplicationBuffer(0, () => 1024 * 1024);
      const r = cursor();
      b.attach(r);
      const writes = Array.from({ length: 12 }, (_, i) => String.fromCharCode(i) + 'v'.repeat(3000 + i));
      for (const w of writes) b.feed(w);
      // Twelve writes of 3 KB cross a block's end: the reader gets them whole and in order.
      expect(b.blockCount).toBe(2);
      expect(b.take(r)).toBe(writes.join(''));
      const late = cursor();
      b.cursorAt(2, late);
      expect(b.take(late)).toBe(writes.join('').slice(1));
      expect(conversions).toBe(0);
    } finally {
      useHostByteCodec(null);
    }
  });

  it('a read joins the writes it reads into one string in the block, and every reader still gets its bytes', () => {
    const b = new ReplicationBuffer(0, () => 1024 * 1024);
    const r = cursor();
    b.attach(r);
    const writes = Array.from({ length: 40 }, (_, i) => `*1\r\n$${String(i).length}\r\n${i}\r\n`);
    for (const w of writes.slice(0, 20)) b.feed(w);
    expect(r.block!.pieceCount).toBe(20);
    expect(b.take(r)).toBe(writes.slice(0, 20).join(''));
    // The twenty writes read are now one string: the block holds a piece per read.
    expect(r.block!.pieceCount).toBe(1);
    for (const w of writes.slice(20)) b.feed(w);
    expect(b.take(r)).toBe(writes.slice(20).join(''));
    expect(r.block!.pieceCount).toBe(2);
    // A partial resync from inside the first piece reads across both.
    const all = writes.join('');
    for (const offset of [1, 7, 60, all.length]) {
      const late = cursor();
      b.cursorAt(offset, late);
      expect(b.take(late)).toBe(all.slice(offset - 1));
      b.detach(late);
    }
  });

  it('a command fed as its arguments counts its framed bytes at once and is framed as a client sends it when read', () => {
    const b = new ReplicationBuffer(0, () => 1024 * 1024);
    const r = cursor();
    b.attach(r);
    // The first bytes fed place the reader (until then a command goes in by feed's parts).
    b.feed('*1\r\n$4\r\nPING\r\n');
    const commands = [['SET', 'key:1', 'v'.repeat(300)], ['DEL', 'a', 'b', 'c'], ['INCR', '']];
    expect(b.tryAppendCommand('', commands[0]!, encodeCommand(commands[0]!).length)).toBe(true);
    expect(b.tryAppendCommand(encodeSelect(3), commands[1]!, encodeCommand(commands[1]!).length)).toBe(true);
    expect(b.tryAppendCommand('', commands[2]!, encodeCommand(commands[2]!).length)).toBe(true);
    const framed = encodeCommand(commands[0]!) + encodeSelect(3) + encodeCommand(commands[1]!) + encodeCommand(commands[2]!);
    expect(b.masterReplOffset).toBe(14 + framed.length);
    // A partial resync from the middle of an argument, before any reader framed it.
    const late = cursor();
    b.cursorAt(14 + 30, late);
    expect(b.take(late)).toBe(framed.slice(29));
    expect(b.take(r)).toBe('*1\r\n$4\r\nPING\r\n' + framed);
  });

  it('a command that does not fit in the block is left to feed, which cuts it at the block end', () => {
    const b = new ReplicationBuffer(0, () => 1024 * 1024);
    const r = cursor();
    b.attach(r);
    b.feed('x'.repeat(20440 - 10));
    expect(b.tryAppendCommand('', ['SET', 'k', 'v'], encodeCommand(['SET', 'k', 'v']).length)).toBe(false);
  });

  it('a reader that joins another keeps its place (copyReplicaOutputBuffer)', () => {
    const b = new ReplicationBuffer(0, () => 1024 * 1024);
    const first = cursor();
    b.attach(first);
    b.feed('abc');
    const second = cursor();
    b.copyCursor(first, second);
    b.feed('def');
    expect(b.take(first)).toBe('abcdef');
    expect(b.take(second)).toBe('abcdef');
  });
});

describe('a backlog grown past its size by a slow replica', () => {
  it('shrinks back within a few passes of the loop once the replica is gone, with no new writes', async () => {
    const { run, until, linkUp, world, field } = setup({ config: { 'repl-diskless-sync-delay': '0' } });
    await run('A', 'CONFIG', 'SET', 'repl-backlog-size', '16384');
    await run('B', 'REPLICAOF', 'A', '6379');
    until(() => linkUp('B'));
    // B stops taking the stream: its place in it holds every block since.
    world.partition('A', 'B');
    for (let i = 0; i < 40; i++) await run('A', 'SET', `big${i}`, 'x'.repeat(100_000));
    expect(Number(await field('A', 'repl_backlog_histlen'))).toBeGreaterThan(4_000_000);
    expect(await run('A', 'CLIENT', 'KILL', 'TYPE', 'replica')).toBe(1);
    world.advance(1000);
    expect(Number(await field('A', 'repl_backlog_histlen'))).toBeLessThan(16384 + 81920);
  });
});
