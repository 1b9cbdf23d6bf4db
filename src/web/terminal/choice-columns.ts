import { textWidth } from './char-width.js';

/**
 * Choices laid out in columns down then across, as bash lists them on a
 * second Tab: each column as wide as the widest choice and two blanks, as
 * many columns as fit in the terminal. Rows are joined by CR LF.
 */
export function choiceColumns(choices: readonly string[], cols: number): string {
  if (choices.length === 0) return '';
  const width = Math.max(...choices.map(textWidth)) + 2;
  const perRow = Math.max(1, Math.floor(cols / width));
  const rows = Math.ceil(choices.length / perRow);
  const out: string[] = [];
  for (let r = 0; r < rows; r++) {
    let line = '';
    for (let c = 0; c < perRow; c++) {
      const choice = choices[c * rows + r];
      if (choice === undefined) continue;
      line += choice + ' '.repeat(width - textWidth(choice));
    }
    out.push(line.trimEnd());
  }
  return out.join('\r\n');
}
