/**
 * What xterm.js reports as typed (its onData strings: printable text,
 * control characters, escape sequences for special keys, or a whole
 * pasted text) cut into keys for the line editor.
 */
export type Key =
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'enter' | 'backspace' | 'delete' | 'left' | 'right' | 'up' | 'down' | 'home' | 'end' | 'wordLeft' | 'wordRight' | 'wordRubout' | 'tab' | 'escape' | 'ignored';
    }
  /** Ctrl and a letter, lower case ('a' for Ctrl-A). */
  | { readonly kind: 'ctrl'; readonly letter: string };

const CSI_KEYS: Record<string, Key['kind']> = {
  A: 'up',
  B: 'down',
  C: 'right',
  D: 'left',
  H: 'home',
  F: 'end',
  '1~': 'home',
  '7~': 'home',
  '4~': 'end',
  '8~': 'end',
  '3~': 'delete',
  '1;5C': 'wordRight',
  '1;5D': 'wordLeft',
  '1;3C': 'wordRight',
  '1;3D': 'wordLeft',
};

/** Whether text has no control character (C0, DEL, C1): what may go into the line as typed text. */
export function isPlainText(text: string): boolean {
  return !/[\x00-\x1f\x7f-\x9f]/.test(text);
}

/**
 * Splits what xterm.js reported into keys, in order. A Tab alone is the
 * Tab key (completion); a tab inside pasted text is a blank. An Escape
 * alone is the Escape key; followed by a key, it is Alt with that key.
 */
export function parseKeys(data: string): Key[] {
  if (data === '\t') return [{ kind: 'tab' }];
  const keys: Key[] = [];
  let i = 0;
  while (i < data.length) {
    const c = data.charCodeAt(i);
    if (c === 0x1b) {
      const next = data[i + 1];
      if (next === '[') {
        // CSI: parameters, then one final byte in @..~.
        let j = i + 2;
        while (j < data.length && /[0-9;?]/.test(data[j]!)) j++;
        const body = data.slice(i + 2, j + 1);
        keys.push({ kind: CSI_KEYS[body] ?? 'ignored' } as Key);
        i = j + 1;
      } else if (next === 'O' && i + 2 < data.length) {
        keys.push({ kind: CSI_KEYS[data[i + 2]!] ?? 'ignored' } as Key);
        i += 3;
      } else if (next === 'b' || next === 'f') {
        keys.push({ kind: next === 'b' ? 'wordLeft' : 'wordRight' });
        i += 2;
      } else if (next === '\x7f') {
        keys.push({ kind: 'wordRubout' });
        i += 2;
      } else if (next === undefined) {
        keys.push({ kind: 'escape' });
        i++;
      } else {
        // Alt with a key the editor has no use for.
        keys.push({ kind: 'ignored' });
        i += 2;
      }
    } else if (c === 0x0d || c === 0x0a) {
      keys.push({ kind: 'enter' });
      // A pasted "\r\n" is one line end.
      i += c === 0x0d && data.charCodeAt(i + 1) === 0x0a ? 2 : 1;
    } else if (c === 0x7f || c === 0x08) {
      keys.push({ kind: 'backspace' });
      i++;
    } else if (c < 0x20 || (c >= 0x80 && c <= 0x9f)) {
      if (c === 0x09) keys.push({ kind: 'text', text: ' ' });
      else if (c >= 1 && c <= 26) keys.push({ kind: 'ctrl', letter: String.fromCharCode(c + 0x60) });
      else keys.push({ kind: 'ignored' });
      i++;
    } else {
      let j = i + 1;
      while (j < data.length) {
        const d = data.charCodeAt(j);
        if (d < 0x20 || d === 0x7f || (d >= 0x80 && d <= 0x9f)) break;
        j++;
      }
      keys.push({ kind: 'text', text: data.slice(i, j) });
      i = j;
    }
  }
  return keys;
}
