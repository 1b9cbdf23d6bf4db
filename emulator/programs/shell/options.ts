/**
 * Option parsing the way GNU getopt_long does it for coreutils: short
 * options may be grouped (-la), take their value attached or as the next
 * word (-n5, -n 5), may follow operands (ls dir -l), and `--` ends them.
 * Errors are the texts getopt prints.
 */
export interface OptionSpec {
  /** Short options without a value, e.g. 'laAh1'. */
  readonly flags: string;
  /** Short options with a value, e.g. 'ns'. */
  readonly withValue?: string;
  /** Long options, mapped to the short option they stand for. */
  readonly long?: Readonly<Record<string, string>>;
}

export interface ParsedOptions {
  readonly flags: Set<string>;
  readonly values: Map<string, string>;
  readonly operands: string[];
}

export function getopt(prog: string, args: readonly string[], spec: OptionSpec): ParsedOptions | { error: string } {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  const operands: string[] = [];
  const withValue = spec.withValue ?? '';
  const tryHelp = `Try '${prog} --help' for more information.\n`;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const name = a.slice(2).split('=')[0]!;
      const short = spec.long?.[name];
      if (short === undefined) return { error: `${prog}: unrecognized option '${a}'\n${tryHelp}` };
      if (withValue.includes(short)) {
        const eq = a.indexOf('=');
        if (eq >= 0) values.set(short, a.slice(eq + 1));
        else if (i + 1 < args.length) values.set(short, args[++i]!);
        else return { error: `${prog}: option '${a}' requires an argument\n${tryHelp}` };
      } else {
        flags.add(short);
      }
      continue;
    }
    if (a.length < 2 || a[0] !== '-') {
      operands.push(a);
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const c = a[j]!;
      if (withValue.includes(c)) {
        if (j + 1 < a.length) values.set(c, a.slice(j + 1));
        else if (i + 1 < args.length) values.set(c, args[++i]!);
        else return { error: `${prog}: option requires an argument -- '${c}'\n${tryHelp}` };
        break;
      }
      if (!spec.flags.includes(c)) return { error: `${prog}: invalid option -- '${c}'\n${tryHelp}` };
      flags.add(c);
    }
  }
  return { flags, values, operands };
}
