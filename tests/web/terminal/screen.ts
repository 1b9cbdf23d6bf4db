/**
 * A tiny model of the part of xterm.js the line editor relies on, for
 * tests: printable text with xterm's deferred wrap at the last column,
 * CR, LF (as CR LF: the terminal runs with convertEol), cursor up, down,
 * forward and back (CSI A/B/C/D), save and restore (ESC 7, ESC 8), erase
 * to the end of the row (CSI K), erase below (CSI J), home and erase
 * screen (CSI H, CSI 2J, CSI 3J). Colours (SGR) are ignored, but the
 * cells written in redis-cli's hint colour (SGR 90) are marked, so grey()
 * reads the hint on the screen; the bell is counted.
 */
export class Screen {
  rows: string[][] = [[]];
  /** How many times the bell rang. */
  bells = 0;
  row = 0;
  col = 0;
  private pendingWrap = false;
  private inGrey = false;
  private saved: [number, number] = [0, 0];
  /** Cells ("row,col") written in the hint colour. */
  private greyCells = new Set<string>();

  constructor(readonly cols: number) {}

  write(s: string): void {
    for (let i = 0; i < s.length; i++) {
      const ch = s[i]!;
      if (ch === '\x1b' && s[i + 1] === '[') {
        let j = i + 2;
        while (/[0-9;?]/.test(s[j]!)) j++;
        this.csi(s.slice(i + 2, j), s[j]!);
        i = j;
      } else if (ch === '\x1b' && (s[i + 1] === '7' || s[i + 1] === '8')) {
        // DECSC and DECRC: save and restore the cursor.
        if (s[i + 1] === '7') this.saved = [this.row, this.col];
        else [this.row, this.col] = this.saved;
        this.pendingWrap = false;
        i++;
      } else if (ch === '\r') {
        this.col = 0;
        this.pendingWrap = false;
      } else if (ch === '\n') {
        this.col = 0;
        this.down();
        this.pendingWrap = false;
      } else if (ch < ' ') {
        // The bell and other control characters print nothing.
        if (ch === '\x07') this.bells++;
      } else {
        if (this.pendingWrap) {
          this.col = 0;
          this.down();
          this.pendingWrap = false;
        }
        this.line()[this.col] = ch;
        if (this.inGrey) this.greyCells.add(`${this.row},${this.col}`);
        else this.greyCells.delete(`${this.row},${this.col}`);
        if (this.col === this.cols - 1) this.pendingWrap = true;
        else this.col++;
      }
    }
  }

  /** The rows as text, trailing blanks cut, trailing empty rows dropped. */
  text(): string[] {
    const out = this.rows.map((r) => Array.from({ length: r.length }, (_, i) => r[i] ?? ' ').join('').trimEnd());
    while (out.length > 1 && out[out.length - 1] === '') out.pop();
    return out;
  }

  /** The text written in the hint colour that is still on the screen, in reading order. */
  grey(): string {
    let out = '';
    this.rows.forEach((r, row) => r.forEach((ch, col) => (out += this.greyCells.has(`${row},${col}`) ? ch : '')));
    return out;
  }

  private csi(params: string, final: string): void {
    if (final === 'm') {
      // Colours do not move the cursor, nor end a pending wrap.
      const codes = params.split(';');
      if (codes.includes('90')) this.inGrey = true;
      else if (codes.includes('0') || params === '' || codes.includes('39')) this.inGrey = false;
      return;
    }
    const n = params === '' ? 1 : Number(params);
    this.pendingWrap = false;
    switch (final) {
      case 'A':
        this.row = Math.max(0, this.row - n);
        break;
      case 'B':
        this.row += n;
        this.line();
        break;
      case 'C':
        this.col = Math.min(this.cols - 1, this.col + n);
        break;
      case 'D':
        this.col = Math.max(0, this.col - n);
        break;
      case 'J':
        if (params === '' || params === '0') {
          this.line().length = Math.min(this.line().length, this.col);
          this.rows.length = this.row + 1;
          for (const cell of this.greyCells) {
            const [r, c] = cell.split(',').map(Number);
            if (r! > this.row || (r === this.row && c! >= this.col)) this.greyCells.delete(cell);
          }
        } else {
          this.greyCells.clear();
          this.rows = [[]];
          this.row = 0;
          this.col = 0;
        }
        break;
      case 'K':
        this.line().length = Math.min(this.line().length, this.col);
        for (const cell of this.greyCells) if (cell.startsWith(`${this.row},`) && Number(cell.split(',')[1]) >= this.col) this.greyCells.delete(cell);
        break;
      case 'H':
        this.row = 0;
        this.col = 0;
        break;
      default:
        // SGR and anything else does not move text.
        break;
    }
  }

  private down(): void {
    this.row++;
    this.line();
  }

  private line(): string[] {
    while (this.rows.length <= this.row) this.rows.push([]);
    return this.rows[this.row]!;
  }
}
