/**
 * The differential corpus format. A script is a text file of steps, one per
 * line; blank lines and lines starting with '#' are ignored.
 *
 *   SET k v                  run on client 1
 *   c2> GET k                run on client 2 (any number of clients)
 *   @unordered SMEMBERS s    compare an array (or map/set) as a multiset
 *   @pairs ZRANDMEMBER ...   compare a flat array of pairs as a multiset of pairs
 *   @shape TIME              compare only the reply's type and size
 *   @type RANDOMKEY          compare only the reply's type
 *   @lines INFO stats        compare a text reply line by line, ignoring the
 *                            values of fields listed after '@lines:' e.g.
 *                            @lines:uptime_in_seconds,used_memory INFO
 *   @mask:*.1,*.2 SLOWLOG GET
 *                            compare exactly, except the elements at the
 *                            paths listed (indexes into nested arrays, maps
 *                            and sets, '*' for any), which compare by type:
 *                            times, durations, addresses
 *   @fields:addr,fd CLIENT LIST   compare name=value words (CLIENT LIST's),
 *                            ignoring the values of the fields listed
 *   !sleep 120               wait 120 ms (the emulator advances its clock)
 *   &BLPOP k 0               send without waiting for the reply (a command
 *                            that blocks); compare the reply at a later
 *   !reply                   step of the same client
 *   !drain                   compare everything the client has received
 *                            and not yet read (pub/sub messages), once
 *                            nothing more arrives
 *   !raw "bytes"             send raw bytes; compare everything the server
 *                            answers until it closes the connection or
 *                            goes quiet
 *
 * Arguments are split like redis-cli does (quotes, \xHH escapes).
 */
import { splitArgs } from '../../emulator/resp/split-args.js';

export type Compare =
  | { kind: 'exact' }
  | { kind: 'unordered' }
  | { kind: 'pairs' }
  | { kind: 'shape' }
  | { kind: 'type' }
  | { kind: 'lines'; ignore: string[] }
  | { kind: 'mask'; paths: string[][] }
  | { kind: 'fields'; ignore: string[] };

export type Step =
  | { kind: 'command'; client: number; argv: string[]; compare: Compare; line: number; text: string; async?: boolean }
  | { kind: 'reply'; client: number; compare: Compare; line: number; text: string }
  | { kind: 'drain'; client: number; line: number; text: string }
  | { kind: 'sleep'; ms: number; line: number; text: string }
  | { kind: 'raw'; client: number; bytes: string; line: number; text: string };

export function parseScript(source: string): Step[] {
  const steps: Step[] = [];
  const lines = source.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    const text = raw.trim();
    if (text === '' || text.startsWith('#')) continue;
    const line = i + 1;
    let rest = text;
    let client = 1;
    const cm = /^c(\d+)>\s*/.exec(rest);
    if (cm) {
      client = Number(cm[1]);
      rest = rest.slice(cm[0].length);
    }
    if (rest.startsWith('!sleep ')) {
      steps.push({ kind: 'sleep', ms: Number(rest.slice(7)), line, text });
      continue;
    }
    if (rest.startsWith('!raw ')) {
      const parts = splitArgs(latin1(rest.slice(5)));
      if (!parts || parts.length !== 1) throw new Error(`line ${line}: !raw takes one quoted argument`);
      steps.push({ kind: 'raw', client, bytes: parts[0]!, line, text });
      continue;
    }
    if (rest === '!drain') {
      steps.push({ kind: 'drain', client, line, text });
      continue;
    }
    if (rest === '!reply' || rest.startsWith('!reply ')) {
      const how = rest.slice(6).trim();
      const compare: Compare = how === '' ? { kind: 'exact' } : ({ kind: how.replace(/^@/, '') } as Compare);
      steps.push({ kind: 'reply', client, compare, line, text });
      continue;
    }
    let async = false;
    if (rest.startsWith('&')) {
      async = true;
      rest = rest.slice(1);
    }
    let compare: Compare = { kind: 'exact' };
    const mm = /^@(unordered|pairs|shape|type|lines|fields|mask)(?::(\S+))?\s+/.exec(rest);
    if (mm) {
      const k = mm[1] as Compare['kind'];
      const list = mm[2] ? mm[2].split(',') : [];
      compare =
        k === 'lines' || k === 'fields' ? { kind: k, ignore: list } : k === 'mask' ? { kind: 'mask', paths: list.map((p) => p.split('.')) } : ({ kind: k } as Compare);
      rest = rest.slice(mm[0].length);
    }
    const argv = splitArgs(latin1(rest));
    if (!argv || argv.length === 0) throw new Error(`line ${line}: cannot split ${JSON.stringify(rest)}`);
    steps.push({ kind: 'command', client, argv, compare, line, text, async });
  }
  return steps;
}

/** Script files are UTF-8; the server sees the UTF-8 bytes. */
function latin1(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1');
}
