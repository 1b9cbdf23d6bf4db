import { HAVE_REAL_REDIS, REAL_REDIS_REQUIRED, REAL_REDIS_VERSION, skipNotice } from './availability.js';

/** Runs once before all tests: checks for the reference server. */
export default function setup(): void {
  if (HAVE_REAL_REDIS) {
    if (!REAL_REDIS_VERSION!.startsWith('7.0.')) {
      console.warn(`\n!!! redis-server ${REAL_REDIS_VERSION} found; the reference is 7.0.15. Differences may not be the emulator's.\n`);
    }
    return;
  }
  if (REAL_REDIS_REQUIRED) {
    throw new Error('redis-server is required here (CI) but was not found: apt-get install redis-server redis-tools');
  }
  console.warn(`\n!!! ${skipNotice()}\n`);
}
