import { repr } from '../../emulator/index.js';
import { happeningWords } from './happenings.js';
import { parseServerRef, type Check, type Moment } from './schema.js';

/**
 * What a check asks for, said as a sentence about the world, for a check
 * whose lesson gives no label of its own: "article:92617:votes is "530"
 * on A", "The power went out on A", "redis-check-aof --fix ran on A".
 * The label stays the same whether the check passes or not, so the list
 * under a step reads as what to do, and never as what went wrong.
 */
export function checkLabel(c: Check): string {
  const at = 'at' in c && c.at !== undefined ? `, ${momentWhen(c.at, serverHost(c))}` : '';
  const after = 'after' in c && c.after !== undefined ? `, after this: ${lowerFirst(happeningWords(c.after).done(serverHost(c)))}` : '';
  return sentence(bareLabel(c) + at + after);
}

function bareLabel(c: Check): string {
  switch (c.kind) {
    case 'key':
      return keyLabel(c);
    case 'info': {
      const where = serverName(c.on);
      if (c['same-as'] !== undefined) {
        const other = c['same-as'];
        return `${c.info} on ${where} is the same as ${other.info ?? c.info} on ${serverName(other.on)}`;
      }
      if (c.is !== undefined) return `${c.info} on ${where} is ${c.is}`;
      const b = bounds(c);
      return b === null ? `${c.info} on ${where} has a value` : `${c.info} on ${where} is ${b}`;
    }
    case 'config':
      return `${c.config} is set to ${JSON.stringify(c.equals)} on ${serverName(c.on)}`;
    case 'dbsize':
      return `The server on ${serverName(c.dbsize)} holds ${bounds(c, 'key') ?? 'keys'}`;
    case 'server':
      return c.running ? `redis-server is running on ${serverName(c.server)}` : `redis-server is not running on ${serverName(c.server)}`;
    case 'host':
      return c.powered ? `${c.host} has power` : `${c.host} is switched off`;
    case 'file':
      return fileLabel(c);
    case 'trace':
      return 'What this step asks for has happened';
    case 'reply':
      return c.equals !== undefined ? `The ${c.reply} terminal received the reply ${c.equals}` : `The ${c.reply} terminal received the reply this step asks for`;
    case 'cell': {
      if (c.report === undefined) return c.status === 'done' ? `The code cell ${c.cell} ran to its end` : `The code cell ${c.cell} was ${c.status === 'failed' ? 'run and failed' : 'stopped'}`;
      const what = c.path === undefined ? c.report : `${c.report}.${c.path}`;
      if (c.is !== undefined) return `The code cell ${c.cell} reported ${what} = ${c.is}`;
      const b = bounds(c);
      return b === null ? `The code cell ${c.cell} reported ${what}` : `The code cell ${c.cell} reported ${what} = ${b}`;
    }
    case 'happened': {
      const host = parseServerRef(c.on).host;
      return happeningWords(c.happened).done(host) + times(c.count);
    }
    case 'ran':
      return `${c.ran}${c.args !== undefined ? ` ${c.args}` : ''} ran on ${c.on}${times(c.count)}`;
    case 'command':
      return `${c.command} ran on ${serverName(c.on)}${times(c.count)}`;
    case 'ledger': {
      const against = c.on === undefined ? '' : ` from the data on ${serverName(c.on)}`;
      if (c.ledger === 'kept') return `No write acknowledged in this step is missing${against}`;
      const when = c.cause === 'partition' ? 'after the partition' : c.cause === 'crash' ? 'before the crash' : 'in this step';
      return `Some writes acknowledged ${when} are missing${against}`;
    }
  }
}

type KeyCheck = Extract<Check, { kind: 'key' }>;

function keyLabel(c: KeyCheck): string {
  const name = repr(c.key);
  const on = `on ${serverName(c.on)}${c.db === 0 ? '' : ` (db ${c.db})`}`;
  if (c.kept !== undefined) return `${name} ${on} still has the value it had ${momentWhen(c.kept, serverHost(c))}`;
  if (c.lost !== undefined) return `The value ${name} had ${momentWhen(c.lost, serverHost(c))} is gone ${on}`;
  const parts: string[] = [];
  if (c.exists === false) parts.push(c.written ? `${name} was written in this step and no longer exists ${on}` : `${name} does not exist ${on}`);
  else {
    let head = `${name}`;
    if (c.equals !== undefined) head += ` is ${repr(c.equals)}`;
    else if (c.number !== undefined) head += ` is ${bounds(c.number) ?? 'a number'}`;
    else if (c.type !== undefined) head += ` is ${c.type === 'zset' ? 'a sorted set' : `a ${c.type}`}`;
    else head += ' exists';
    head += ` ${on}`;
    if (c['same-as'] !== undefined) head = `${name} ${on} is the same as on ${serverName(c['same-as'].on)}`;
    if (c.written) head = `${head}, written in this step`;
    parts.push(head);
    if (c.equals !== undefined && c.type !== undefined) parts.push(c.type === 'zset' ? 'a sorted set' : `a ${c.type}`);
    if (c.length !== undefined) parts.push(`holding ${bounds(c.length, lengthNoun(c.type)) ?? 'something'}`);
    if (c.ttl !== undefined) parts.push(c.ttl.equals === -1 ? 'with no expiry' : `with ${bounds(c.ttl, 'second') ?? 'some time'} to live`);
    if (c.field !== undefined) {
      const f = repr(c.field.name);
      parts.push(c.field.exists === false ? `without the field ${f}` : c.field.equals !== undefined ? `its field ${f} ${repr(c.field.equals)}` : `with the field ${f}`);
    }
    if (c.member !== undefined) {
      const m = repr(c.member.name);
      parts.push(!c.member.exists ? `without ${m}` : c.member.score !== undefined ? `${m} in it with the score ${c.member.score}` : `${m} in it`);
    }
  }
  return parts.join(', ');
}

type FileCheck = Extract<Check, { kind: 'file' }>;

function fileLabel(c: FileCheck): string {
  const where = `${c.file} on ${c.on}`;
  if (c.exists === false) return `${where} does not exist`;
  if (c.valid !== undefined) return `redis-check-${c.valid} finds ${where} sound`;
  if (c.invalid !== undefined) return `redis-check-${c.invalid} finds ${where} damaged`;
  const parts = [`${where} exists`];
  if (c.size !== undefined) parts.push(`${bounds(c.size, 'byte') ?? 'some bytes'} long`);
  if (c.durable === true) parts.push('every byte of it on the disk');
  if (c.durable === false) parts.push('some of it not on the disk yet');
  if (c['cached-bytes'] !== undefined) parts.push(`${bounds(c['cached-bytes'], 'byte') ?? 'some bytes'} of it only in the page cache`);
  return parts.join(', ');
}

interface Bounds {
  equals?: number | undefined;
  min?: number | undefined;
  max?: number | undefined;
}

/** "5", "at least 2", "between 15 and 21"; with a noun, "5 keys", "at least 2 keys"; null without bounds. */
function bounds(b: Bounds, noun?: string): string | null {
  const n = (x: number) => (noun === undefined ? String(x) : count(x, noun));
  if (b.equals !== undefined) return n(b.equals);
  if (b.min !== undefined && b.max !== undefined) return `between ${b.min} and ${n(b.max)}`;
  if (b.min !== undefined) return `at least ${n(b.min)}`;
  if (b.max !== undefined) return `at most ${n(b.max)}`;
  return null;
}

function times(b: Bounds): string {
  if (b.equals !== undefined) return b.equals === 1 ? ' once' : ` ${b.equals} times`;
  if (b.min !== undefined && b.min > 1) return b.min === 2 ? ' twice' : ` ${b.min} times`;
  return '';
}

function lengthNoun(type: string | undefined): string {
  return type === 'hash' ? 'field' : type === 'list' ? 'item' : type === 'string' ? 'byte' : 'member';
}

export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** "A" for A:6379, "A:6380" otherwise. */
export function serverName(ref: string): string {
  const { host, port } = parseServerRef(ref);
  return port === 6379 ? host : `${host}:${port}`;
}

function serverHost(c: Check): string {
  switch (c.kind) {
    case 'key':
    case 'info':
    case 'config':
      return parseServerRef(c.on).host;
    case 'dbsize':
      return parseServerRef(c.dbsize).host;
    case 'server':
      return parseServerRef(c.server).host;
    case 'file':
      return c.on;
    case 'host':
      return c.host;
    default:
      return '';
  }
}

/** "when the power went out on A". */
export function momentWhen(m: Moment, host: string): string {
  switch (m) {
    case 'power-loss':
      return `when the power went out on ${host}`;
    case 'kill':
      return `when redis-server on ${host} was killed`;
    case 'crash':
      return `when redis-server on ${host} crashed`;
    case 'stop':
      return `when redis-server on ${host} stopped`;
    case 'fork':
      return `when redis-server on ${host} forked`;
  }
}

/** "The power has not gone out on A in this step": the moment a check looks back to has not come yet. */
export function momentNotYet(m: Moment, host: string): string {
  switch (m) {
    case 'power-loss':
      return `the power has not gone out on ${host} in this step`;
    case 'kill':
      return `redis-server on ${host} has not been killed in this step`;
    case 'crash':
      return `redis-server on ${host} has not crashed in this step`;
    case 'stop':
      return `redis-server on ${host} has not stopped in this step`;
    case 'fork':
      return `redis-server on ${host} has not forked in this step`;
  }
}

function lowerFirst(s: string): string {
  return /^[A-Z][a-z]/.test(s) ? s.charAt(0).toLowerCase() + s.slice(1) : s;
}

/**
 * A sentence's capital first letter, and no full stop (the list adds
 * none). Names keep their case: "redis-server on A", "appendfsync is no";
 * only plain English words at the start are capitalised.
 */
export function sentence(s: string): string {
  return /^(the|no|a|an|every|nothing|it|some|one|this)\b/.test(s) ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}
