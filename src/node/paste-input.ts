import { EventEmitter } from 'node:events';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** What Node's readline uses of a terminal's input stream. */
export interface TtyInput extends EventEmitter {
  readonly isTTY: true;
  setRawMode(on: boolean): this;
  resume(): this;
  pause(): this;
  /** Stops taking the terminal's input (readline has closed). */
  detach(): void;
}

/** Runs of plain text at least this long go into the line at once. */
const PASTE_CHARS = 64;
/** The longest escape sequence a terminal sends for a key (CSI, parameters, final byte), with room to spare. */
const ESCAPE_TAIL_CHARS = 16;

/**
 * Stands between a terminal and Node's readline. readline takes input one
 * character at a time and works out the cursor's place over the whole line
 * for each, so a pasted line of 200 KB would take it minutes. Here runs of
 * plain text (what a paste is made of) go to `insert` in one piece, while
 * everything else (keys, escape sequences, line ends) reaches readline as
 * it came, in order: readline reads from the returned stream, which
 * delivers synchronously.
 *
 *   const input = pasteAwareInput(process.stdin, (text) => insertIntoLine(rl, text));
 *   const rl = createInterface({ input, output: process.stdout, terminal: true });
 */
export function pasteAwareInput(source: Readable & { setRawMode?: (on: boolean) => unknown }, insert: (text: string) => void): TtyInput {
  const input = new EventEmitter() as TtyInput & { isTTY: true };
  Object.assign(input, {
    isTTY: true,
    setRawMode(on: boolean) {
      source.setRawMode?.(on);
      return input;
    },
    resume() {
      source.resume();
      return input;
    },
    pause() {
      source.pause();
      return input;
    },
    detach() {
      source.off('data', onData);
      source.off('end', onEnd);
    },
  });
  const decoder = new StringDecoder('utf8');
  /** The end of what readline was last given, to tell whether a run of text continues an escape sequence. */
  let tail = '';
  const toReadline = (text: string): void => {
    if (text === '') return;
    tail = (tail + text).slice(-ESCAPE_TAIL_CHARS);
    input.emit('data', Buffer.from(text, 'utf8'));
  };
  const onData = (chunk: Buffer | string): void => {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    for (const piece of plainRuns(text)) {
      if (!piece.plain || piece.text.length < PASTE_CHARS) {
        toReadline(piece.text);
        continue;
      }
      // Characters right after an Escape may end its sequence: readline must see them.
      const lead = tail.includes('\x1b') ? ESCAPE_TAIL_CHARS : 0;
      toReadline(piece.text.slice(0, lead));
      insert(piece.text.slice(lead));
      tail = '';
    }
  };
  const onEnd = (): void => {
    input.emit('end');
  };
  source.on('data', onData);
  source.on('end', onEnd);
  return input;
}

/** The text cut into runs of plain characters and runs of anything else (control characters, Escape), in order. */
export function plainRuns(text: string): Array<{ plain: boolean; text: string }> {
  const out: Array<{ plain: boolean; text: string }> = [];
  const control = /[\x00-\x1f\x7f]+/g;
  let at = 0;
  for (const m of text.matchAll(control)) {
    if (m.index > at) out.push({ plain: true, text: text.slice(at, m.index) });
    out.push({ plain: false, text: m[0] });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ plain: true, text: text.slice(at) });
  return out;
}

/** What of readline's Interface a paste changes: its line, its cursor, and how it draws them. */
interface ReadlineLine {
  line: string;
  cursor: number;
  readonly columns: number;
  /** Rows from the prompt's first row down to the cursor, as last drawn. */
  prevRows: number;
  getCursorPos(): { rows: number; cols: number };
  _refreshLine(): void;
  _writeToOutput(text: string): void;
}

/** Where the end of the line was after the last piece of a paste, so the next piece need not measure the whole line again. */
const lineEnds = new WeakMap<object, { line: string; columns: number; offset: number }>();

/**
 * Puts text into readline's line at the cursor and draws it: at the end
 * of the line only the new text is written (redrawing a line of megabytes
 * for each piece of a paste would send the terminal gigabytes), elsewhere
 * the line is drawn again once.
 */
export function insertIntoLine(rl: object, text: string): void {
  const r = rl as ReadlineLine;
  if (r.cursor < r.line.length) {
    r.line = r.line.slice(0, r.cursor) + text + r.line.slice(r.cursor);
    r.cursor += text.length;
    r._refreshLine();
    return;
  }
  const cols = r.columns;
  const last = lineEnds.get(rl);
  // Still the line this measured last (the same string: comparing costs nothing).
  const before = last !== undefined && last.line === r.line && last.columns === cols ? last.offset : null;
  r.line += text;
  r.cursor += text.length;
  r._writeToOutput(text);
  // Printable ASCII takes a column a character: the end moves on by the
  // text's length. Anything else is measured by readline over the line.
  let offset: number;
  if (before !== null && /^[\x20-\x7e]*$/.test(text)) {
    offset = before + text.length;
  } else {
    const pos = r.getCursorPos();
    offset = pos.rows * cols + pos.cols;
  }
  lineEnds.set(rl, { line: r.line, columns: cols, offset });
  // Text that fills its last row exactly leaves the terminal's cursor on
  // that row; readline then starts the next row itself, and so does this.
  if (offset % cols === 0) r._writeToOutput(' \x1b[1G');
  r.prevRows = Math.floor(offset / cols);
}
