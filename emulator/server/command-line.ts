import { asciiLower, repr } from '../resp/bytes.js';
import { splitArgs } from '../resp/split-args.js';

/**
 * redis-server's command line as configuration text (src/config.c main):
 * an optional config file first, then `--name value ...` options, each
 * becoming a line of the same text a file holds. `-` (first or last) reads
 * standard input. `--save` with no value means `save ""`, and `--sentinel`
 * takes none.
 */
export interface CommandLineConfig {
  configFile: string | null;
  /** The options as config lines, values quoted like sdscatrepr. */
  options: string;
  fromStdin: boolean;
}

export function configFromCommandLine(args: readonly string[]): CommandLineConfig {
  let configFile: string | null = null;
  let fromStdin = false;
  let options = '';
  let j = 0;
  if (args.length !== 0 && args[0]![0] !== '-') {
    configFile = args[0]!;
    j = 1;
  }
  // Whether the last option name already has its value (handled_last_config_arg).
  let valueGiven = true;
  for (; j < args.length; j++) {
    const a = args[j]!;
    const last = j === args.length - 1;
    if (a === '-' && (j === 0 || last)) {
      fromStdin = true;
    } else if (valueGiven && a.startsWith('--')) {
      if (options.length !== 0) options += '\n';
      options += a.slice(2) + ' ';
      const words = splitArgs(a) ?? [];
      if (words.length === 1) {
        valueGiven = false;
        const next = args[j + 1];
        const lower = asciiLower(a);
        // `--save` followed by another option or by nothing means `save ""`,
        // as command lines built from empty lists before 7.0.1 expect.
        if (lower === '--save' && (last || next!.startsWith('--'))) {
          options += '""';
          valueGiven = !last;
        } else if (lower === '--sentinel' && !last && next!.startsWith('--')) {
          valueGiven = true;
        }
      } else {
        valueGiven = true;
      }
    } else {
      options += repr(a) + ' ';
      valueGiven = true;
    }
  }
  return { configFile, options, fromStdin };
}
