/**
 * What a learner must never read in a check's label or reason: words of
 * the workbook's machinery (its trace, patterns, the runner) instead of
 * words about the machines. Returns the offending piece, or null.
 *
 *   jargonIn('the trace shows no spawn on A matching /redis-check-rdb/')  // 'trace'
 */
const JARGON: ReadonlyArray<[RegExp, string]> = [
  [/\btrace\b/i, 'trace'],
  [/\bspawn(ed|s)?\b/i, 'spawn'],
  [/\bregex|regular expression/i, 'regular expression'],
  [/\bmatching\b/i, 'matching'],
  [/(^|\s)\/[^\s/]*[\\^$*+?()[\]{}|][^\s/]*\//, 'a pattern between slashes'],
  [/\bevents? since\b/i, 'events since'],
  [/\brunner\b/i, 'runner'],
  [/\[(info|offset \d+|additional info)\]/, "a tool's bracketed tag"],
  [/\b(undefined|null|NaN)\b|\[object /, 'a value of the program'],
  [/\bmoments?\b/i, 'moment'],
  [/\bhits?\b/i, 'hit'],
  [/\b(exited|killed|power-loss) 137\b/, 'an exit status'],
];

export function jargonIn(text: string): string | null {
  for (const [re, what] of JARGON) if (re.test(text)) return what;
  return null;
}
