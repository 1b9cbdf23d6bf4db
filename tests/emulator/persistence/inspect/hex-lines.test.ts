import { describe, expect, it } from 'vitest';
import { hexLines, hexLineText } from '../../../../emulator/persistence/inspect/hex-lines.js';
import { fileKind, isText } from '../../../../emulator/persistence/inspect/file-kind.js';
import { canonical } from '../../../../emulator/programs/shell/hexdump.js';

const bytes = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

describe('hex lines', () => {
  it('print as hexdump -Cv prints the same bytes, window by window', () => {
    const data = new Uint8Array(100);
    for (let i = 0; i < data.length; i++) data[i] = (i * 37) & 0xff;
    const lines = hexLines(data, 0, data.length).map(hexLineText);
    const dumped = canonical(data, 0, false).trimEnd().split('\n');
    // hexdump's last line is the offset past the data.
    expect([...lines, '00000064']).toEqual(dumped);
    // A window starting mid-line starts at its line, with the offsets of the file.
    const window = hexLines(data, 40, 70);
    expect(window.map((l) => l.offset)).toEqual([32, 48, 64]);
    expect(hexLineText(window[0]!)).toBe(dumped[2]);
  });

  it('show control bytes and markup as dots in the ASCII column', () => {
    const [line] = hexLines(bytes('<img>\x1b[31m\x00'), 0, 16);
    expect(hexLineText(line!)).toBe('00000000  3c 69 6d 67 3e 1b 5b 33  31 6d 00                 |<img>.[31m.|');
  });
});

describe('file kinds', () => {
  it("tell Redis's files apart by name first, then by their bytes", () => {
    expect(fileKind('/var/lib/redis/dump.rdb', bytes('REDIS0010'))).toBe('rdb');
    expect(fileKind('appendonly.aof.1.base.rdb', bytes('REDIS0010'))).toBe('rdb');
    expect(fileKind('appendonly.aof.1.incr.aof', bytes('*2\r\n$6\r\nSELECT\r\n'))).toBe('aof');
    expect(fileKind('appendonly.aof', bytes('REDIS0010'))).toBe('aof');
    expect(fileKind('appendonly.aof.manifest', bytes('file a seq 1 type b\n'))).toBe('manifest');
    expect(fileKind('/tmp/copy', bytes('*1\r\n$4\r\nPING\r\n'))).toBe('aof');
    expect(fileKind('/tmp/backup', bytes('REDIS0010\xfa'))).toBe('rdb');
    expect(fileKind('/etc/redis/redis.conf', bytes('port 6379\n'))).toBe('text');
    expect(fileKind('/tmp/blob', bytes('\x00\x01\x02'))).toBe('binary');
    expect(isText(bytes('caf\xc3\xa9\n'))).toBe(true);
    expect(isText(bytes('\x1b[31m'))).toBe(false);
  });
});
