import { asciiLower } from '../resp/bytes.js';
import { cString } from '../numbers/c-string.js';

/**
 * What redis-cli 7.0 decides from a command's words alone, before or after
 * sending it (src/redis-cli.c cliSendCommand, isSensitiveCommand, repl).
 * Arguments are byte strings; redis-cli compares them with strcasecmp, so a
 * word ends at its first NUL and case is ASCII-insensitive.
 */

function word(s: string | undefined): string {
  if (s === undefined) return '';
  return asciiLower(cString(s));
}

/**
 * Commands whose reply redis-cli prints as is even in TTY mode, because the
 * reply is text meant to be read (INFO, CLIENT LIST, LATENCY DOCTOR...).
 */
export function printsVerbatim(argv: readonly string[]): boolean {
  const argc = argv.length;
  const cmd = word(argv[0]);
  const sub = word(argv[1]);
  if (cmd === 'info' || cmd === 'lolwut') return true;
  if (argc >= 2 && cmd === 'debug' && (sub === 'htstats' || sub === 'htstats-key' || sub === 'client-eviction')) return true;
  if (argc >= 2 && cmd === 'memory' && (sub === 'malloc-stats' || sub === 'doctor')) return true;
  if (argc === 2 && cmd === 'cluster' && (sub === 'nodes' || sub === 'info')) return true;
  if (argc >= 2 && cmd === 'client' && (sub === 'list' || sub === 'info')) return true;
  if (argc === 3 && cmd === 'latency' && sub === 'graph') return true;
  if (argc === 2 && cmd === 'latency' && sub === 'doctor') return true;
  if (argc >= 2 && cmd === 'proxy' && sub === 'info') return true;
  return false;
}

/**
 * Commands redis-cli keeps out of its history file because they carry
 * passwords: AUTH, ACL SETUSER, CONFIG SET of a secret, HELLO ... AUTH,
 * MIGRATE ... AUTH/AUTH2.
 */
export function isSensitiveCommand(argv: readonly string[]): boolean {
  const argc = argv.length;
  const cmd = word(argv[0]);
  if (cmd === 'auth') return true;
  if (argc > 1 && cmd === 'acl' && word(argv[1]) === 'setuser') return true;
  if (argc > 2 && cmd === 'config' && word(argv[1]) === 'set') {
    const name = word(argv[2]);
    return name === 'masterauth' || name === 'masteruser' || name === 'requirepass';
  }
  if (argc > 4 && cmd === 'hello') {
    for (let j = 2; j < argc; j++) {
      const more = argc - 1 - j;
      const w = word(argv[j]);
      if (w === 'auth' && more >= 2) return true;
      if (w === 'setname' && more > 0) j++;
      else return false;
    }
    return false;
  }
  if (argc > 7 && cmd === 'migrate') {
    for (let j = 6; j < argc; j++) {
      const more = argc - 1 - j;
      const w = word(argv[j]);
      if (w === 'auth' && more > 0) return true;
      if (w === 'auth2' && more >= 2) return true;
      if (w === 'keys' && more > 0) return false;
    }
  }
  return false;
}

/**
 * The repeat count a line starts with ("3 INCR x" runs INCR three times),
 * read as strtol does: the whole first word must be a base-10 number
 * (leading blanks and a sign allowed, an empty word reads as 0). Returns
 * null when the first word is not a count (or is the only word), and
 * 'invalid' when it is a count that is out of range or not positive.
 */
export function parseRepeat(argv: readonly string[]): number | 'invalid' | null {
  if (argv.length < 2) return null;
  const first = word(argv[0]);
  if (first === '') return 'invalid';
  const m = /^[\t\n\v\f\r ]*([+-]?)(\d+)$/.exec(first);
  if (m === null) return null;
  const n = BigInt(m[1] + m[2]);
  if (n <= 0n || n > 9223372036854775807n) return 'invalid';
  return Number(n);
}
