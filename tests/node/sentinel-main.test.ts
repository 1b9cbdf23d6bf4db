/**
 * The emulator's redis-sentinel entry logs as redis-sentinel does: with a
 * logfile in its config, every line (its start-up lines included) goes to
 * that file, found from `dir`, and nothing to standard output, where a
 * test harness reading it would find them mixed with its own lines.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSentinel } from '../../src/node/sentinel-main.js';
import { freePort } from '../support/real-redis.js';

describe('redis-sentinel (Node entry)', () => {
  it('writes its start-up lines to the logfile in its dir, none to standard output', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sentinel-main-'));
    try {
      writeFileSync(join(root, 'sentinel.conf'), `port ${await freePort()}\ndir ${root}\nlogfile log.txt\nsentinel monitor mymaster 127.0.0.1 1 1\n`);
      let out = '';
      const running = await runSentinel([join(root, 'sentinel.conf')], { stdout: (t) => void (out += t) });
      expect(typeof running).not.toBe('number');
      if (typeof running !== 'number') await running.shutdown();
      expect(out).toBe('');
      const log = readFileSync(join(root, 'log.txt'), 'latin1');
      expect(log.split('\n')[0]).toMatch(/^\d+:X .* # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo$/);
      expect(log).toMatch(/# Sentinel ID is [0-9a-f]{40}\n/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
