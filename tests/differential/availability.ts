/**
 * Whether the reference server is here. In CI (CI=true or
 * REQUIRE_REAL_REDIS=1) it must be; on a developer's machine without it the
 * differential tests skip, and say so loudly.
 */
import { realRedisVersion } from '../support/real-redis.js';

export const REAL_REDIS_VERSION = realRedisVersion();
export const REAL_REDIS_REQUIRED = process.env.CI === 'true' || process.env.REQUIRE_REAL_REDIS === '1';
export const HAVE_REAL_REDIS = REAL_REDIS_VERSION !== null;

export function skipNotice(): string {
  return `SKIPPED: redis-server 7.0 not found (install Debian's redis-server to run the differential tests)`;
}
