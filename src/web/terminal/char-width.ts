/**
 * Columns a character takes in the terminal: 2 for East Asian wide and
 * full-width characters and most emoji, as xterm.js draws them, else 1.
 * Combining marks are counted as 1; the editor only needs to place its
 * cursor right for the text people type at a prompt.
 */
const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x3fffd],
];

export function charWidth(ch: string): number {
  const c = ch.codePointAt(0) ?? 0;
  if (c < 0x1100) return 1;
  for (const [lo, hi] of WIDE) if (c >= lo && c <= hi) return 2;
  return 1;
}

export function textWidth(text: string): number {
  let w = 0;
  for (const ch of text) w += charWidth(ch);
  return w;
}
