import type { RedisServer } from './server.js';

/** Switches that DEBUG sets and other parts of the emulator read. */
export class DebugSettings {
  /** Elements larger than this are stored in plain quicklist nodes (1 GB by default). */
  quicklistPackedThreshold = 1024 ** 3;
  skipChecksumValidation = false;
  disableDenyScripts = false;
  pauseCron = false;
  aofFlushSleepUs = 0;
  replyBufferResizing = true;
  replyBufferPeakResetTimeMs = 5000;
}

const settings = new WeakMap<RedisServer, DebugSettings>();

export function debugSettings(server: RedisServer): DebugSettings {
  let s = settings.get(server);
  if (!s) settings.set(server, (s = new DebugSettings()));
  return s;
}
