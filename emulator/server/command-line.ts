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

/**
 * loadServerConfigFromString's walk over configuration text (src/config.c):
 * each line trimmed, blank lines and comments skipped, the rest split like
 * a shell line with the directive's name lower-cased, and handed to
 * `directive`, which answers null or the error that stops the server. The
 * first failure comes back in the fatal error's words; the caller raises it
 * its own way (a shell's exit, the Node server's).
 */
export function readConfigText(text: string, version: string, directive: (argv: string[]) => string | null): string | null {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
    if (line === '' || line[0] === '#') continue;
    const argv = splitArgs(line);
    const err = argv === null ? 'Unbalanced quotes in configuration line' : argv.length === 0 ? null : directive(argv.map((a, k) => (k === 0 ? asciiLower(a) : a)));
    if (err !== null) {
      return `\n*** FATAL CONFIG FILE ERROR (Redis ${version}) ***\n` + `Reading the configuration file, at line ${i + 1}\n>>> '${line}'\n${err}`;
    }
  }
  return null;
}
