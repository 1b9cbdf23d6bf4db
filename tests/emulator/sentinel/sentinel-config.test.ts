/**
 * sentinel.conf is read as queueSentinelConfig reads it: the options
 * monitoring depends on first, then the monitor lines, then the rest, so a
 * master's options may come before its monitor line (Redis's own test
 * suite writes them so); errors name the line.
 */
import { describe, expect, it } from 'vitest';
import { parseSentinelConfig, rewriteSentinelConfig, SentinelConfigError } from '../../../emulator/sentinel/config.js';

describe('sentinel.conf', () => {
  it("reads a master's options written before its monitor line", () => {
    const c = parseSentinelConfig(
      'sentinel down-after-milliseconds setmaster 20000\nsentinel parallel-syncs setmaster 2\nsentinel announce-port 7000\nsentinel monitor setmaster 10.0.0.1 30000 2\n',
    );
    expect(c.masters.map((m) => [m.name, m.downAfterMs, m.parallelSyncs])).toEqual([['setmaster', 20000, 2]]);
    expect(c.globals.announcePort).toBe(7000);
    expect(rewriteSentinelConfig(c)).toContain('sentinel monitor setmaster 10.0.0.1 30000 2\nsentinel down-after-milliseconds setmaster 20000\nsentinel parallel-syncs setmaster 2\n');
  });

  it('refuses an option of a master that is never monitored, naming its line', () => {
    let err: unknown;
    try {
      parseSentinelConfig('port 26379\nsentinel down-after-milliseconds other 20000\nsentinel monitor setmaster 10.0.0.1 30000 2\n');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SentinelConfigError);
    expect([(err as SentinelConfigError).lineNumber, (err as SentinelConfigError).reason]).toEqual([2, 'No such master with specified name.']);
  });
});
