/**
 * The multi-part AOF manifest: what Redis 7.0 writes and reads. Manifests
 * a real server writes (fresh, after rewrites that keep their history,
 * with a file name that needs quoting) are parsed and written back byte
 * for byte, and the same rewrites replayed on the emulator's manifest give
 * the same text. The refusals are compared with the real tool's log in
 * tests/emulator/programs/redis-check-aof.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAVE_REAL_REDIS, skipNotice } from '../../../differential/availability.js';
import { RawConnection, startRealRedis } from '../../../support/real-redis.js';
import {
  baseFileName,
  emptyManifest,
  filesToLoad,
  formatManifest,
  incrFileName,
  isManifestError,
  manifestErrorLog,
  manifestFileName,
  parseManifest,
  tempIncrFileName,
  tempManifestFileName,
  withNewBase,
  withNewIncr,
  withRewrittenIncrAsHistory,
  withoutHistory,
  type AofManifest,
} from '../../../../emulator/persistence/aof/manifest.js';

if (!HAVE_REAL_REDIS) console.warn(`\n!!! aof manifest vs real: ${skipNotice()}\n`);
const itReal = HAVE_REAL_REDIS ? it : it.skip;

function parsed(text: string): AofManifest {
  const m = parseManifest(text);
  if (isManifestError(m)) throw new Error(m.reason);
  return m;
}

/** What a server starting with appendonly yes and an empty directory makes. */
function fresh(name: string): AofManifest {
  const base = withNewBase(emptyManifest(), name, true);
  return withNewIncr(base.manifest, name).manifest;
}

/** BGREWRITEAOF with AOF on: a new incr file at the start, then the new base, and the covered incr files become history. */
function rewrite(m: AofManifest, name: string): AofManifest {
  const opened = withNewIncr(m, name).manifest;
  return withRewrittenIncrAsHistory(withNewBase(opened, name, true).manifest, true);
}

async function waitForRewrite(c: RawConnection): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const info = (await c.command(['INFO', 'persistence'])) as string;
    if (/aof_rewrite_in_progress:0/.test(info) && /aof_rewrite_scheduled:0/.test(info)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('rewrite did not finish');
}

describe('AOF manifest', () => {
  it('names files as Redis does', () => {
    expect(manifestFileName('appendonly.aof')).toBe('appendonly.aof.manifest');
    expect(tempManifestFileName('appendonly.aof')).toBe('temp-appendonly.aof.manifest');
    expect(baseFileName('appendonly.aof', 1, true)).toBe('appendonly.aof.1.base.rdb');
    expect(baseFileName('appendonly.aof', 2, false)).toBe('appendonly.aof.2.base.aof');
    expect(incrFileName('appendonly.aof', 7)).toBe('appendonly.aof.7.incr.aof');
    expect(tempIncrFileName('appendonly.aof')).toBe('temp-appendonly.aof.incr');
  });

  it('writes the base first, then history, then incr files, quoting names that need it', () => {
    const m: AofManifest = {
      base: { name: 'a b.2.base.rdb', seq: 2, type: 'b' },
      history: [{ name: 'x"y\t\x01\xff', seq: 1, type: 'h' }],
      incr: [
        { name: 'appendonly.aof.1.incr.aof', seq: 1, type: 'i' },
        { name: 'appendonly.aof.2.incr.aof', seq: 2, type: 'i' },
      ],
      baseSeq: 2,
      incrSeq: 2,
    };
    const text = formatManifest(m);
    expect(text).toBe(
      'file "a b.2.base.rdb" seq 2 type b\n' +
        'file "x\\"y\\t\\x01\\xff" seq 1 type h\n' +
        'file appendonly.aof.1.incr.aof seq 1 type i\n' +
        'file appendonly.aof.2.incr.aof seq 2 type i\n',
    );
    expect(parseManifest(text)).toEqual(m);
    expect(filesToLoad(m).map((f) => f.name)).toEqual(['a b.2.base.rdb', 'appendonly.aof.1.incr.aof', 'appendonly.aof.2.incr.aof']);
    expect(formatManifest(withoutHistory(m))).not.toContain('type h');
  });

  it('reads keys in any case, ignores unknown pairs and comments, and keeps the last value of a repeated key', () => {
    const m = parsed('# a comment\nFILE a SEQ 3 TYPE i future 1\nfile b file c seq 4 type i\n');
    expect(m.incr).toEqual([
      { name: 'a', seq: 3, type: 'i' },
      { name: 'c', seq: 4, type: 'i' },
    ]);
    expect(m.incrSeq).toBe(4);
  });

  it('refuses what aofLoadManifestFromFile refuses, with the line it shows', () => {
    const cases: Array<[string, string, number | null]> = [
      ['', 'Found an empty AOF manifest', null],
      ['file x seq 1 type i', 'The AOF manifest file contains too long line', null],
      ['\n', 'Invalid AOF manifest file format', 1],
      ['file x seq 1\n', 'Invalid AOF manifest file format', 1],
      ['file x seq 0 type i\n', 'Invalid AOF manifest file format', 1],
      ['file "x seq 1 type i\n', 'Invalid AOF manifest file format', 1],
      ['file a/b seq 1 type i\n', "File can't be a path, just a filename", 1],
      ['file x seq 1 type b\nfile y seq 2 type b\n', 'Found duplicate base file information', 2],
      ['file x seq 2 type i\nfile y seq 2 type i\n', 'Found a non-monotonic sequence number', 2],
      ['file x seq 1 type q\n', 'Unknown AOF file type', 1],
    ];
    for (const [text, reason, line] of cases) {
      const m = parseManifest(text);
      expect(isManifestError(m), text).toBe(true);
      if (!isManifestError(m)) continue;
      expect(m.reason, text).toBe(reason);
      expect(m.line?.number ?? null, text).toBe(line);
    }
    const e = parseManifest('  file x seq 1 type q \r\n');
    expect(isManifestError(e) && manifestErrorLog(e)).toEqual([
      '\n*** FATAL AOF MANIFEST FILE ERROR ***\n',
      'Reading the manifest file, at line 1\n',
      ">>> 'file x seq 1 type q'\n",
      'Unknown AOF file type\n',
    ]);
  });

  itReal('reads and writes back what a real server writes, fresh and after rewrites that keep history', async () => {
    for (const name of ['appendonly.aof', 'my aof.aof']) {
      const real = await startRealRedis(['--appendonly', 'yes', '--appendfilename', name, '--aof-disable-auto-gc', 'yes']);
      try {
        const c = await RawConnection.open(real.port);
        const read = () => readFileSync(join(real.dir, 'appendonlydir', manifestFileName(name))).toString('latin1');
        let expected = fresh(name);
        let text = read();
        expect(formatManifest(parsed(text))).toBe(text);
        expect(text).toBe(formatManifest(expected));
        for (let i = 0; i < 2; i++) {
          await c.command(['SET', 'k', String(i)]);
          await c.command(['BGREWRITEAOF']);
          await waitForRewrite(c);
          expected = rewrite(expected, name);
          text = read();
          expect(formatManifest(parsed(text))).toBe(text);
          expect(text).toBe(formatManifest(expected));
        }
        c.close();
      } finally {
        await real.stop();
      }
    }
  }, 30_000);
});
