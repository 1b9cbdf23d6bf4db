import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../emulator/numbers/sha256.js';
import { World } from '../../../emulator/world/world.js';
import { HostShell } from '../../../emulator/programs/shell.js';

describe('sha256sum', () => {
  it('digests like FIPS 180-4 at every padding boundary', () => {
    for (const n of [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 1000, 100_000]) {
      const data = new Uint8Array(n);
      for (let i = 0; i < n; i++) data[i] = (i * 131 + 7) & 0xff;
      expect(sha256Hex(data)).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });

  it('prints what coreutils sha256sum prints, and its error for a missing file', () => {
    const world = new World({ seed: 1 });
    world.addHost('A');
    world.host('A').disk.writeFile('/f.txt', new TextEncoder().encode('hello\n'));
    let out = '';
    const shell = new HostShell(world, 'A', (t) => (out += t));
    shell.run('sha256sum /f.txt /missing');
    world.advance(10);
    const real = spawnSync('sh', ['-c', 'printf "hello\\n" | sha256sum'], { encoding: 'utf8' }).stdout.split(' ')[0];
    expect(out).toContain(`${real}  /f.txt\n`);
    expect(out).toContain('sha256sum: /missing: No such file or directory\n');
  });
});
