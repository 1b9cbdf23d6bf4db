/**
 * The periods and timeouts of src/sentinel.c that SENTINEL DEBUG shows and
 * changes (sentinel_info_period, sentinel_ping_period ...). Redis keeps them
 * in globals of the process, so a change reaches every master it monitors.
 */
import { errorReply, MapReply, OK, type Reply } from '../resp/reply.js';
import { DEFAULT_DOWN_AFTER_MS, DEFAULT_FAILOVER_TIMEOUT_MS } from './config.js';

export interface SentinelPeriods {
  infoMs: number;
  pingMs: number;
  askMs: number;
  publishMs: number;
  defaultDownAfterMs: number;
  defaultFailoverTimeoutMs: number;
  tiltTriggerMs: number;
  tiltPeriodMs: number;
  replicaReconfTimeoutMs: number;
  minLinkReconnectMs: number;
  electionTimeoutMs: number;
  scriptMaxRuntimeMs: number;
  scriptRetryDelayMs: number;
}

/** The values a sentinel starts with (SENTINEL_PING_PERIOD is 1000; the TILT period is 30 of them). */
export function defaultPeriods(): SentinelPeriods {
  return {
    infoMs: 10_000,
    pingMs: 1000,
    askMs: 1000,
    publishMs: 2000,
    defaultDownAfterMs: DEFAULT_DOWN_AFTER_MS,
    defaultFailoverTimeoutMs: DEFAULT_FAILOVER_TIMEOUT_MS,
    tiltTriggerMs: 2000,
    tiltPeriodMs: 30_000,
    replicaReconfTimeoutMs: 10_000,
    minLinkReconnectMs: 15_000,
    electionTimeoutMs: 10_000,
    scriptMaxRuntimeMs: 60_000,
    scriptRetryDelayMs: 30_000,
  };
}

/** Each option's name, in the order addReplySentinelDebugInfo lists them, with its field. */
const OPTIONS: ReadonlyArray<[string, keyof SentinelPeriods]> = [
  ['info-period', 'infoMs'],
  ['ping-period', 'pingMs'],
  ['ask-period', 'askMs'],
  ['publish-period', 'publishMs'],
  ['default-down-after', 'defaultDownAfterMs'],
  ['default-failover-timeout', 'defaultFailoverTimeoutMs'],
  ['tilt-trigger', 'tiltTriggerMs'],
  ['tilt-period', 'tiltPeriodMs'],
  ['slave-reconf-timeout', 'replicaReconfTimeoutMs'],
  ['min-link-reconnect-period', 'minLinkReconnectMs'],
  ['election-timeout', 'electionTimeoutMs'],
  ['script-max-runtime', 'scriptMaxRuntimeMs'],
  ['script-retry-delay', 'scriptRetryDelayMs'],
];

/** SENTINEL DEBUG without arguments (addReplySentinelDebugInfo): every period by its upper-case name. */
export function periodsReply(p: SentinelPeriods): Reply {
  return new MapReply(OPTIONS.flatMap(([name, key]) => [name.toUpperCase(), String(p[key])]));
}

/**
 * SENTINEL DEBUG <option> <milliseconds> ... (sentinelSetDebugConfigParameters):
 * each option is applied as it is read, so an error leaves the ones before it set.
 */
export function setPeriods(p: SentinelPeriods, argv: readonly string[]): Reply {
  for (let j = 2; j < argv.length; j++) {
    const option = argv[j]!;
    const key = OPTIONS.find(([name]) => name === option.toLowerCase())?.[1];
    if (key === undefined || argv.length - 1 - j === 0) return errorReply(`Unknown option or number of arguments for SENTINEL DEBUG '${option}'`);
    const value = argv[++j]!;
    // getLongLongFromObject: the whole word is a number; it must be above zero.
    if (!/^-?\d+$/.test(value) || Number(value) <= 0) return errorReply(`Invalid argument '${value}' for SENTINEL DEBUG '${option}'`);
    p[key] = Number(value);
  }
  return OK;
}
