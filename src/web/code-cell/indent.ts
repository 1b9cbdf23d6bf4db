/** What Tab inserts in a code cell. */
const INDENT = '  ';

/**
 * Tab and Shift+Tab in a code cell's editor: indents (or outdents) the
 * selected lines, or inserts an indent at the caret. Returns the new text
 * and where the selection goes.
 *
 *   indent('a\nb', 0, 3, false)   // { text: '  a\n  b', selStart: 2, selEnd: 7 }
 */
export function indent(text: string, selStart: number, selEnd: number, outdent: boolean): { text: string; selStart: number; selEnd: number } {
  if (selStart === selEnd && !outdent) {
    return { text: text.slice(0, selStart) + INDENT + text.slice(selEnd), selStart: selStart + INDENT.length, selEnd: selStart + INDENT.length };
  }
  const first = text.lastIndexOf('\n', selStart - 1) + 1;
  const last = selEnd > selStart && text[selEnd - 1] === '\n' ? selEnd - 1 : selEnd;
  const block = text.slice(first, last);
  const lines = block.split('\n');
  let removedFirst = 0;
  const changed = lines.map((l, i) => {
    if (!outdent) return INDENT + l;
    const n = l.startsWith(INDENT) ? INDENT.length : l.startsWith(' ') ? 1 : 0;
    if (i === 0) removedFirst = n;
    return l.slice(n);
  });
  const out = changed.join('\n');
  const delta = out.length - block.length;
  const startShift = outdent ? -Math.min(removedFirst, selStart - first) : INDENT.length;
  return { text: text.slice(0, first) + out + text.slice(last), selStart: Math.max(first, selStart + startShift), selEnd: Math.max(first, selEnd + delta) };
}
