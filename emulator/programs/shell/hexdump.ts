import type { Command } from './context.js';
import { errnoCode, errnoText } from './errors.js';
import { getopt } from './options.js';

/**
 * hexdump from util-linux 2.38: -C (canonical hex+ASCII) or the default
 * 16-bit words, over the files given one after another, with -s to skip
 * and -n to limit. A line equal to the one before is shown as a single
 * '*'; the last line is the offset just past the data.
 */
export const hexdump: Command = (ctx, args) => {
  const opts = getopt('hexdump', args, { flags: 'Cv', withValue: 'sn', long: { canonical: 'C', skip: 's', length: 'n', 'no-squeezing': 'v' } });
  if ('error' in opts) {
    ctx.err(opts.error);
    return 1;
  }
  let skip = 0;
  let length = Infinity;
  const s = opts.values.get('s');
  if (s !== undefined) {
    const v = parseSize(s);
    if (v === null) {
      ctx.err(`hexdump: failed to parse offset: '${s}': Invalid argument\n`);
      return 1;
    }
    skip = v;
  }
  const n = opts.values.get('n');
  if (n !== undefined) {
    const v = parseSize(n);
    if (v === null) {
      ctx.err(`hexdump: failed to parse length: '${n}': Invalid argument\n`);
      return 1;
    }
    length = v;
  }
  // Standard input is a terminal with nothing typed: nothing to dump.
  if (opts.operands.length === 0) return 0;
  const parts: Uint8Array[] = [];
  let missing = 0;
  for (const name of opts.operands) {
    try {
      parts.push(ctx.host.disk.readFile(ctx.resolve(name)));
    } catch (e) {
      ctx.err(`hexdump: ${name}: ${errnoText(e)}\n`);
      // A directory opens fine and fails only when read, so it does not
      // count as a failed argument.
      if (errnoCode(e) !== 'EISDIR') missing++;
    }
  }
  if (missing === opts.operands.length) {
    ctx.err('hexdump: all input file arguments failed\n');
    return 1;
  }
  const data = concat(parts);
  if (length === 0) return missing === 0 ? 0 : 1;
  const start = Math.min(skip, data.length);
  const shown = data.subarray(start, Math.min(data.length, start + length));
  const squeeze = !opts.flags.has('v');
  ctx.out(opts.flags.has('C') ? canonical(shown, start, squeeze) : words16(shown, start, squeeze));
  return missing === 0 ? 0 : 1;
};

/** Sizes as util-linux reads them: decimal, 0x hex, with an optional K/M/G (KiB...) or KB/MB/GB suffix. */
function parseSize(text: string): number | null {
  const m = /^(0x[0-9a-f]+|[0-9]+)(?:(k|m|g|t)(ib)?|(kb|mb|gb|tb))?$/i.exec(text);
  if (m === null) return null;
  const base = m[1]!.toLowerCase().startsWith('0x') ? parseInt(m[1]!.slice(2), 16) : parseInt(m[1]!, 10);
  const binary = m[2]?.toLowerCase();
  const decimal = m[4]?.toLowerCase();
  const exp = { k: 1, m: 2, g: 3, t: 4 } as Record<string, number>;
  if (binary) return base * 1024 ** exp[binary]!;
  if (decimal) return base * 1000 ** exp[decimal[0]!]!;
  return base;
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

function sameLine(data: Uint8Array, a: number, b: number): boolean {
  for (let i = 0; i < 16; i++) if (data[a + i] !== data[b + i]) return false;
  return true;
}

/**
 * Lines of 16 bytes; `format` renders one (possibly short) line. A full
 * line equal to the previous full line is squeezed into '*'.
 */
function dump(data: Uint8Array, base: number, squeeze: boolean, offsetWidth: number, format: (line: Uint8Array) => string): string {
  let out = '';
  let starred = false;
  for (let off = 0; off < data.length; off += 16) {
    const full = off + 16 <= data.length;
    if (squeeze && full && off >= 16 && sameLine(data, off, off - 16)) {
      if (!starred) out += '*\n';
      starred = true;
      continue;
    }
    starred = false;
    out += hex(base + off, offsetWidth) + format(data.subarray(off, off + 16)) + '\n';
  }
  if (data.length !== 0 || base !== 0) out += hex(base + data.length, offsetWidth) + '\n';
  return out;
}

/** hexdump -C: "00000000  68 69 0a ...  |hi.|". */
export function canonical(data: Uint8Array, base = 0, squeeze = true): string {
  return dump(data, base, squeeze, 8, (line) => {
    let s = ' ';
    for (let i = 0; i < 16; i++) {
      if (i === 8) s += ' ';
      s += i < line.length ? ' ' + hex(line[i]!, 2) : '   ';
    }
    s += '  |';
    for (const b of line) s += b >= 0x20 && b <= 0x7e ? String.fromCharCode(b) : '.';
    return s + '|';
  });
}

/** hexdump's default: little-endian 16-bit words in hex, "0000000 6968 000a". */
export function words16(data: Uint8Array, base = 0, squeeze = true): string {
  return dump(data, base, squeeze, 7, (line) => {
    let s = '';
    for (let i = 0; i < 16; i += 2) {
      if (i >= line.length) s += '     ';
      else s += ' ' + hex((line[i + 1] ?? 0) * 256 + line[i]!, 4);
    }
    return s;
  });
}
