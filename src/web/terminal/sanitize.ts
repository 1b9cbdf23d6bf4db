/**
 * What the terminal shows of bytes that come from the simulated world.
 *
 * Programs write byte strings (one char per byte, UTF-8 for text).
 * redis-cli's formatting already quotes every non-printable byte of a key
 * or value, but other paths print data as it is: `cat` of a file,
 * `redis-cli --raw`, `echo -e`. A real terminal would obey the escape
 * sequences in such data; here data must never drive the terminal (move
 * the cursor, change colours, set the title, query it). So every control
 * character but newline, carriage return and tab is shown in caret
 * notation, as `cat -v` shows it: ESC is "^[", DEL "^?", the C1 control
 * U+009B "M-^[".
 */

const decoder = new TextDecoder('utf-8', { fatal: false });

/** The two sequences "clear" writes (redis-cli's and the shell's), which the terminal honours as a whole write. */
const CLEAR_SCREEN = new Set(['\x1b[H\x1b[2J', '\x1b[H\x1b[2J\x1b[3J']);

/** Whether a write is exactly a clear-screen request from `clear`. */
export function isClearScreen(bytes: string): boolean {
  return CLEAR_SCREEN.has(bytes);
}

/** A byte string decoded as UTF-8 (invalid bytes become U+FFFD), with its control characters made visible. */
export function terminalText(bytes: string): string {
  let plain = true;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes.charCodeAt(i);
    if (c >= 0x7f || (c < 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09)) {
      plain = false;
      break;
    }
  }
  if (plain) return bytes;
  const raw = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) raw[i] = bytes.charCodeAt(i) & 0xff;
  return visibleControls(decoder.decode(raw));
}

/**
 * Text the terminal's own program composed with colours (redis-cli's
 * help): its SGR sequences (ESC [ ... m) are kept, every other control
 * character is made visible as in terminalText. Never for bytes that come
 * from the world (keys, values, files).
 */
export function styledText(bytes: string): string {
  const raw = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) raw[i] = bytes.charCodeAt(i) & 0xff;
  return decoder
    .decode(raw)
    .split(/(\x1b\[[0-9;]*m)/)
    .map((part, i) => (i % 2 === 1 ? part : visibleControls(part)))
    .join('');
}

/** Text (already decoded) with every control character but \n, \r and \t in caret notation. */
export function visibleControls(text: string): string {
  return text.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g, (ch) => caret(ch.charCodeAt(0)));
}

function caret(c: number): string {
  if (c === 0x7f) return '^?';
  if (c >= 0x80) return 'M-' + caret(c - 0x80);
  return '^' + String.fromCharCode(c + 0x40);
}
