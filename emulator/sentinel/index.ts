/**
 * Sentinel's front for programs outside the emulator (the Node entry of
 * src/node/sentinel-main.ts): starting redis-sentinel on a world's host,
 * and reading its config file's text as it will. The page never imports
 * it up front: Sentinel loads on demand.
 */
export { registerSentinel, type SentinelDaemonOptions } from './daemon.js';
export { configWords, parseSentinelConfig, sentinelConfigText, SentinelConfigError } from './config.js';
