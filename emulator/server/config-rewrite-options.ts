import { bytesToArray, repr } from '../resp/bytes.js';
import { sha256Hex } from '../numbers/sha256.js';
import { CONFIG_PARAMS, type ConfigParam } from './config-params.js';
import { lookupParam } from './config.js';
import { formatMemory, rewriteStringOption, RewriteState } from './config-rewrite.js';

/**
 * The server's side of CONFIG REWRITE: every parameter written back the way
 * its type's rewrite function writes it in src/config.c, then the ACL
 * users and modules (rewriteConfigUserOption, rewriteConfigLoadmoduleOption).
 */

/** What the rewrite reads beside the parameters' values. */
export interface RewriteInputs {
  /** A parameter's current value (CONFIG GET's string). */
  value(name: string): string;
  /** The primary this server replicates from, or null (server.masterhost). */
  primary: { host: string; port: number } | null;
  /** Sentinel mode: no save lines (rewriteConfigSaveOption). */
  sentinelMode?: boolean;
}

/**
 * String parameters that keep an empty value as a value (ALLOW_EMPTY_STRING
 * with a default of ""): the other parameters whose default is empty hold
 * no value at all when empty (EMPTY_STRING_IS_NULL), which the file says by
 * not mentioning them.
 */
const EMPTY_IS_A_VALUE = new Set(['aclfile', 'ignore-warnings', 'logfile']);

/** The default addresses (CONFIG_DEFAULT_BINDADDR): a bind at them is not written. */
const DEFAULT_BIND = '* -::*';

/** The three classes of client-output-buffer-limit, as the file names them. */
const OBUF_CLASSES = [
  ['normal', 'normal'],
  ['slave', 'replica'],
  ['pubsub', 'pubsub'],
] as const;

/** The directive an old file's line belongs to: the option's own name for an alias. */
export function serverDirective(name: string): string | undefined {
  return lookupParam(name)?.name;
}

/**
 * The new text of a server's config file, from the old text (null: no
 * file yet) and the running configuration.
 */
export function rewriteServerConfig(oldText: string | null, inputs: RewriteInputs): string {
  const state = new RewriteState(oldText, serverDirective, inputs.sentinelMode === true);
  rewriteServerOptions(state, inputs);
  return state.content();
}

/** Every parameter, the ACL users and the modules, into `state` (rewriteConfig's steps 2). */
export function rewriteServerOptions(state: RewriteState, inputs: RewriteInputs): void {
  for (const p of CONFIG_PARAMS) rewriteParam(state, p, inputs);
  // The only ACL user is "default", described as ACLDescribeUser does.
  if (inputs.value('aclfile') !== '') {
    state.markProcessed('user');
  } else {
    const pass = inputs.value('requirepass');
    const password = pass === '' ? 'nopass' : `#${sha256Hex(bytesToArray(pass))}`;
    state.rewriteLine('user', `user default on ${password} ~* &* +@all`, true);
  }
  // No modules are loaded: loadmodule lines are dropped.
  state.markProcessed('loadmodule');
}

function rewriteParam(state: RewriteState, p: ConfigParam, inputs: RewriteInputs): void {
  const name = p.name;
  const value = inputs.value(name);
  switch (p.kind) {
    case 'bool':
    case 'enum':
      state.rewriteLine(name, `${name} ${value}`, value !== p.default);
      return;
    case 'numeric':
      state.rewriteLine(name, `${name} ${numericText(p, value)}`, value !== p.default);
      return;
    case 'string':
      if (value === '' && p.default === '' && !EMPTY_IS_A_VALUE.has(name)) rewriteStringOption(state, name, null, null);
      else rewriteStringOption(state, name, value, p.default === '' && !EMPTY_IS_A_VALUE.has(name) ? null : p.default);
      return;
    case 'special':
      rewriteSpecial(state, p, value, inputs);
  }
}

/** How numericConfigRewrite writes a value: a percentage, a size, octal, or a plain number. */
function numericText(p: ConfigParam, value: string): string {
  if (value.endsWith('%')) return value;
  // Memory parameters are stored as unsigned numbers and written as signed ones.
  if (p.memory === true) return formatMemory(BigInt.asIntN(64, BigInt(value)));
  return value;
}

function rewriteSpecial(state: RewriteState, p: ConfigParam, value: string, inputs: RewriteInputs): void {
  const name = p.name;
  switch (name) {
    case 'dir':
      rewriteStringOption(state, name, value, null);
      return;
    case 'save': {
      if (inputs.sentinelMode === true) {
        state.markProcessed(name);
        return;
      }
      const words = value === '' ? [] : value.split(' ');
      if (words.length === 0) state.rewriteLine(name, 'save ""', true);
      for (let i = 0; i + 1 < words.length; i += 2) state.rewriteLine(name, `save ${words[i]} ${words[i + 1]}`, true);
      state.markProcessed(name);
      return;
    }
    case 'client-output-buffer-limit': {
      const current = limitsByClass(value);
      const defaults = limitsByClass(p.default);
      for (const [klass, fileName] of OBUF_CLASSES) {
        const [hard, soft, seconds] = current.get(klass)!;
        const line = `${name} ${fileName} ${formatMemory(BigInt(hard!))} ${formatMemory(BigInt(soft!))} ${seconds}`;
        state.rewriteLine(name, line, current.get(klass)!.join(' ') !== defaults.get(klass)!.join(' '));
      }
      return;
    }
    case 'notify-keyspace-events':
      state.rewriteLine(name, `${name} ${repr(value)}`, value !== '');
      return;
    case 'bind':
      if (value === DEFAULT_BIND) {
        state.markProcessed(name);
        return;
      }
      state.rewriteLine(name, `${name} ${value === '' ? '""' : value}`, true);
      return;
    case 'replicaof':
      if (inputs.primary === null || inputs.value('cluster-enabled') === 'yes') {
        state.markProcessed(name);
        return;
      }
      state.rewriteLine(name, `${name} ${inputs.primary.host} ${inputs.primary.port}`, true);
      return;
    case 'latency-tracking-info-percentiles':
      state.rewriteLine(name, `${name} ${value === '' ? '""' : value}`, true);
      return;
    default:
      // oom-score-adj-values: the three numbers, written when any differs.
      state.rewriteLine(name, `${name} ${value}`, value !== p.default);
  }
}

/** "normal 0 0 0 slave ..." as class -> [hard, soft, seconds]. */
function limitsByClass(value: string): Map<string, string[]> {
  const words = value.split(' ');
  const out = new Map<string, string[]>();
  for (let i = 0; i + 3 < words.length; i += 4) out.set(words[i]!, words.slice(i + 1, i + 4));
  return out;
}
