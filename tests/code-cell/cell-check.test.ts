import { describe, expect, it } from 'vitest';
import { evaluateCheck, type CellRunView } from '../../src/lessons/checks.js';
import { checkSchema } from '../../src/lessons/schema.js';
import { World } from '../../emulator/world/world.js';

const world = new World({ seed: 1 });

function check(spec: Record<string, unknown>, run: CellRunView | null) {
  const c = checkSchema.parse({ kind: 'cell', ...spec });
  return evaluateCheck(c, { world, stepStartUs: 0, lastReply: () => null, cell: () => run });
}

const done: CellRunView = { status: 'done', reports: { vpn: { plain: 3.65, pipelined: 17.9 }, rows: [{ name: 'unix' }], listed: true }, error: null };

describe('cell checks', () => {
  it('pass when the cell ran to its end and reported what the lesson expects', () => {
    expect(check({ cell: 'bench' }, done)).toMatchObject({ ok: true, label: 'The code cell bench ran to its end', detail: 'code cell bench ran to its end' });
    expect(check({ cell: 'bench', report: 'vpn', path: 'pipelined', min: 17, max: 19 }, done)).toMatchObject({ ok: true, detail: 'code cell bench reported vpn.pipelined = 17.900' });
    expect(check({ cell: 'bench', report: 'rows', path: '0.name', is: 'unix' }, done).ok).toBe(true);
    expect(check({ cell: 'bench', report: 'listed', is: 'true' }, done).ok).toBe(true);
  });

  it('say what differs when they fail', () => {
    expect(check({ cell: 'bench' }, null)).toMatchObject({ ok: false, detail: 'code cell bench has not run yet' });
    expect(check({ cell: 'bench' }, { status: 'running', reports: {}, error: null }).detail).toBe('code cell bench is still running');
    expect(check({ cell: 'bench' }, { status: 'failed', reports: {}, error: { message: 'boom', line: 3 } }).detail).toBe('code cell bench failed: boom (line 3)');
    expect(check({ cell: 'bench', report: 'vpn', path: 'plain', min: 18 }, done).detail).toBe('code cell bench reported vpn.plain = 3.650, less than 18');
    expect(check({ cell: 'bench', report: 'lan' }, done).detail).toBe('code cell bench has not reported lan');
    expect(check({ cell: 'bench', report: 'vpn', path: 'nothing' }, done).detail).toBe('code cell bench reported no vpn.nothing');
    expect(check({ cell: 'bench', report: 'vpn', min: 1 }, done).detail).toMatch(/not a number/);
    expect(check({ cell: 'bench', 'why-not': 'Run the benchmark first.' }, null)).toMatchObject({ ok: false, message: 'Run the benchmark first.' });
  });

  it('can expect a cell to fail or be stopped', () => {
    expect(check({ cell: 'spin', status: 'stopped' }, { status: 'stopped', reports: {}, error: null }).ok).toBe(true);
    expect(check({ cell: 'spin', status: 'stopped' }, done).detail).toBe('code cell spin ran to its end');
  });
});
