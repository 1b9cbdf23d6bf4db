import { VerbatimReply, type Reply } from '../resp/reply.js';
import { parseInt64 } from '../numbers/int64.js';
import { NOT_INTEGER } from '../server/errors.js';
import { REDIS_VERSION } from '../server/info.js';
import type { Client } from '../server/client.js';
import type { Handler } from '../server/command-table.js';
import type { Random } from '../sim/random.js';

/**
 * LOLWUT [VERSION v] [args] (src/lolwut.c): Redis 7.0 prints its version;
 * VERSION 5 draws Georg Nees's "Schotter" in Braille characters
 * (lolwut5.c), VERSION 6 a city skyline in terminal colours (lolwut6.c).
 * Both drawings take random numbers where Redis calls rand(), from the
 * server's own random source, so their pieces fall elsewhere than on a
 * real server; the size, the first two rows of squares and the words
 * under the drawing are the same. C's float arithmetic is kept with
 * Math.fround so the positions round as Redis's do.
 */

const RAND_MAX = 0x7fffffff;
const f = Math.fround;

/** C's round(): halves away from zero. */
function cRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

class Canvas {
  readonly pixels: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
    background: number,
  ) {
    this.pixels = new Uint8Array(width * height).fill(background);
  }
  set(x: number, y: number, color: number): void {
    if (x >= 0 && x < this.width && y >= 0 && y < this.height) this.pixels[x + y * this.width] = color;
  }
  get(x: number, y: number): number {
    return x >= 0 && x < this.width && y >= 0 && y < this.height ? this.pixels[x + y * this.width]! : 0;
  }
  /** lwDrawLine: Bresenham's line. */
  line(x1: number, y1: number, x2: number, y2: number, color: number): void {
    const dx = Math.abs(x2 - x1);
    const dy = Math.abs(y2 - y1);
    const sx = x1 < x2 ? 1 : -1;
    const sy = y1 < y2 ? 1 : -1;
    let err = dx - dy;
    for (;;) {
      this.set(x1, y1, color);
      if (x1 === x2 && y1 === y2) break;
      const e2 = err * 2;
      if (e2 > -dy) {
        err -= dy;
        x1 += sx;
      }
      if (e2 < dx) {
        err += dx;
        y1 += sy;
      }
    }
  }
}

/** Reads an optional long argument (getLongFromObjectOrReply); null when it is not one. */
function longArg(argv: readonly string[], i: number, fallback: number): number | null {
  if (argv.length <= i) return fallback;
  const n = parseInt64(argv[i]!);
  return n === null ? null : Number(n);
}

const clamp = (n: number, lo: number, hi: number): number => Math.min(Math.max(n, lo), hi);

/** lwDrawSquare: a square inscribed in a circle of `size`, turned by `angle`. */
function square(canvas: Canvas, x: number, y: number, size: number, angle: number): void {
  size = f(cRound(f(size / 1.4142135623)));
  let k = f(Math.PI / 4 + angle);
  const px: number[] = [];
  const py: number[] = [];
  for (let j = 0; j < 4; j++) {
    px.push(cRound(Math.sin(k) * size + x));
    py.push(cRound(Math.cos(k) * size + y));
    k = f(k + Math.PI / 2);
  }
  for (let j = 0; j < 4; j++) canvas.line(px[j]!, py[j]!, px[(j + 1) % 4]!, py[(j + 1) % 4]!, 1);
}

/** lwDrawSchotter: rows of squares, turned and moved more the lower they are. */
function schotter(cols: number, perRow: number, perCol: number, rand: () => number): Canvas {
  const width = cols * 2;
  const padding = width > 4 ? 2 : 0;
  const side = f(f(width - padding * 2) / f(perRow));
  const height = Math.trunc(f(f(side * f(perCol)) + padding * 2));
  const canvas = new Canvas(width, height, 0);
  for (let y = 0; y < perCol; y++) {
    for (let x = 0; x < perRow; x++) {
      let sx = Math.trunc(f(f(f(x * side) + f(side / 2)) + padding));
      let sy = Math.trunc(f(f(f(y * side) + f(side / 2)) + padding));
      let angle = 0;
      if (y > 1) {
        const share = (): number => f(f(f(f(rand()) / f(RAND_MAX)) / f(perCol)) * f(y));
        let r1 = share();
        let r2 = share();
        let r3 = share();
        if (rand() % 2) r1 = -r1;
        if (rand() % 2) r2 = -r2;
        if (rand() % 2) r3 = -r3;
        angle = r1;
        sx = Math.trunc(f(sx + f(f(r2 * side) / 3)));
        sy = Math.trunc(f(sy + f(f(r3 * side) / 3)));
      }
      square(canvas, sx, sy, side, angle);
    }
  }
  return canvas;
}

/** lolwut5.c renderCanvas: each 2x4 block of pixels is one Braille character, in UTF-8. */
function braille(canvas: Canvas): string {
  let text = '';
  for (let y = 0; y < canvas.height; y += 4) {
    for (let x = 0; x < canvas.width; x += 2) {
      const bits = [canvas.get(x, y), canvas.get(x, y + 1), canvas.get(x, y + 2), canvas.get(x + 1, y), canvas.get(x + 1, y + 1), canvas.get(x + 1, y + 2), canvas.get(x, y + 3), canvas.get(x + 1, y + 3)];
      let byte = 0;
      bits.forEach((on, i) => {
        if (on) byte |= 1 << i;
      });
      const code = 0x2800 + byte;
      text += String.fromCharCode(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    }
    if (y !== canvas.height - 1) text += '\n';
  }
  return text;
}

interface Skyscraper {
  xoff: number;
  width: number;
  height: number;
  windows: boolean;
  color: number;
}

/** generateSkyscraper: a block from the bottom, its roof narrower, with windows of random greys. */
function skyscraper(canvas: Canvas, s: Skyscraper, rand: () => number): void {
  const starty = canvas.height - 1;
  const endy = starty - s.height + 1;
  for (let y = starty; y >= endy; y--) {
    for (let x = s.xoff; x < s.xoff + s.width; x++) {
      if (y === endy && (x <= s.xoff + 1 || x >= s.xoff + s.width - 2)) continue;
      let color = s.color;
      if (s.windows && x > s.xoff + 1 && x < s.xoff + s.width - 2 && y > endy + 1 && y < starty - 1) {
        const relx = x - (s.xoff + 1);
        const rely = y - (endy + 1);
        if (Math.trunc(relx / 2) % 2 && rely % 2) {
          do color = 1 + (rand() % 2);
          while (color === s.color);
          if (relx % 2) color = canvas.get(x - 1, y);
        }
      }
      canvas.set(x, y, color);
    }
  }
}

/** generateSkyline: two rows of grey blocks behind, black ones with windows in front. */
function skyline(canvas: Canvas, rand: () => number): void {
  const h = canvas.height;
  for (let color = 2; color >= 1; color--) {
    for (let offset = -10; offset < canvas.width; ) {
      offset += rand() % 8;
      const width = 10 + (rand() % 9);
      const height = color === 2 ? Math.trunc(h / 2) + Math.trunc((rand() % h) / 2) : Math.trunc(h / 2) + Math.trunc((rand() % h) / 3);
      skyscraper(canvas, { xoff: offset, width, height, windows: false, color }, rand);
      offset += color === 2 ? Math.trunc(width / 2) : width + 1;
    }
  }
  for (let offset = -10; offset < canvas.width; ) {
    offset += rand() % 8;
    let width = 5 + (rand() % 14);
    if (width % 4) width += width % 3;
    const height = Math.trunc(h / 3) + Math.trunc((rand() % h) / 2);
    skyscraper(canvas, { xoff: offset, width, height, windows: true, color: 0 }, rand);
    offset += width + 5;
  }
}

const COLOURS = ['0;30;40m', '0;90;100m', '0;37;47m', '0;97;107m'];

/** lolwut6.c renderCanvas: one coloured space per pixel. */
function coloured(canvas: Canvas): string {
  const rows: string[] = [];
  for (let y = 0; y < canvas.height; y++) {
    let row = '';
    for (let x = 0; x < canvas.width; x++) row += `\x1b[${COLOURS[canvas.get(x, y)] ?? COLOURS[0]} \x1b[0m`;
    rows.push(row);
  }
  return rows.join('\n');
}

function randOf(random: Random): () => number {
  return () => random.nextU32() >>> 1;
}

function lolwut5(c: Client, argv: readonly string[]): Reply {
  const cols = longArg(argv, 1, 66);
  const perRow = cols === null ? null : longArg(argv, 2, 8);
  const perCol = perRow === null ? null : longArg(argv, 3, 12);
  if (cols === null || perRow === null || perCol === null) return NOT_INTEGER;
  const canvas = schotter(clamp(cols, 1, 1000), clamp(perRow, 1, 200), clamp(perCol, 1, 200), randOf(c.server.random));
  return new VerbatimReply(`${braille(canvas)}\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. ${REDIS_VERSION}\n`);
}

function lolwut6(c: Client, argv: readonly string[]): Reply {
  const cols = longArg(argv, 1, 80);
  const rows = cols === null ? null : longArg(argv, 2, 20);
  if (cols === null || rows === null) return NOT_INTEGER;
  const canvas = new Canvas(clamp(cols, 1, 1000), clamp(rows, 1, 1000), 3);
  skyline(canvas, randOf(c.server.random));
  return new VerbatimReply(
    `${coloured(canvas)}\nDedicated to the 8 bit game developers of past and present.\nOriginal 8 bit image from Plaguemon by hikikomori. Redis ver. ${REDIS_VERSION}\n`,
  );
}

function lolwut(c: Client, argv: string[]): Reply {
  let version = 7;
  let rest: readonly string[] = argv;
  if (argv.length >= 3 && argv[1]!.toLowerCase() === 'version') {
    const v = parseInt64(argv[2]!);
    if (v === null) return NOT_INTEGER;
    // Redis prints the number as an unsigned int into "%u.0.0" and reads its first characters.
    version = Number(BigInt.asUintN(32, BigInt(v)));
    rest = [argv[0]!, ...argv.slice(3)];
  }
  if (version === 5) return lolwut5(c, rest);
  if (version === 6) return lolwut6(c, rest);
  return new VerbatimReply(`Redis ver. ${REDIS_VERSION}\n`);
}

export const lolwutCommands: Record<string, Handler> = { lolwut };
