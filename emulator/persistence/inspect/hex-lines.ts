/**
 * `hexdump -C` as data: lines of 16 bytes with their offset, so a viewer
 * can mark bytes (the un-synced tail, where decoding stopped) and show any
 * window of a large file without formatting the rest. The text of a line
 * is the one `hexdump -Cv` prints (shell/hexdump.ts's canonical()).
 */
export interface HexLine {
  readonly offset: number;
  readonly bytes: Uint8Array;
}

export const HEX_LINE_BYTES = 16;

/** The lines covering [start, end) of `data`, `start` rounded down to a line. */
export function hexLines(data: Uint8Array, start: number, end: number): HexLine[] {
  const out: HexLine[] = [];
  const stop = Math.min(end, data.length);
  for (let off = Math.max(0, start - (start % HEX_LINE_BYTES)); off < stop; off += HEX_LINE_BYTES) {
    out.push({ offset: off, bytes: data.subarray(off, Math.min(off + HEX_LINE_BYTES, data.length)) });
  }
  return out;
}

/** "0000001a": a line's offset as hexdump -C prints it. */
export function hexOffset(offset: number): string {
  return offset.toString(16).padStart(8, '0');
}

/** "52": one byte in hex. */
export function hexByte(b: number): string {
  return (b < 16 ? '0' : '') + b.toString(16);
}

/** hexdump's ASCII column: printable ASCII as it is, every other byte as '.'. */
export function asciiColumn(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += b >= 0x20 && b <= 0x7e ? String.fromCharCode(b) : '.';
  return s;
}

/** The line as hexdump -Cv prints it, without its newline. */
export function hexLineText(line: HexLine): string {
  let s = hexOffset(line.offset) + ' ';
  for (let i = 0; i < HEX_LINE_BYTES; i++) {
    if (i === 8) s += ' ';
    s += i < line.bytes.length ? ' ' + hexByte(line.bytes[i]!) : '   ';
  }
  return `${s}  |${asciiColumn(line.bytes)}|`;
}
