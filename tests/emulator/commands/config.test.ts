import { describe, expect, it } from 'vitest';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { ErrorReply, MapReply, StatusReply, type Reply } from '../../../emulator/resp/reply.js';

function setup(config: Record<string, string> = {}) {
  const server = createServer({ clock: new ManualClock(), config });
  const c = server.connect();
  const run = (...argv: string[]): Reply => server.execute(c, argv);
  return { server, c, run };
}

function text(r: Reply): string {
  if (r instanceof StatusReply) return r.text;
  if (r instanceof ErrorReply) return '-' + r.message;
  return String(r);
}

describe('CONFIG commands', () => {
  it('CONFIG GET answers under the name as typed for an exact name', () => {
    const { run } = setup();
    expect((run('CONFIG', 'GET', 'MAXMEMORY') as MapReply).flat).toEqual(['MAXMEMORY', '0']);
    expect((run('CONFIG', 'GET', 'maxmemory', 'MAXMEMORY') as MapReply).flat).toEqual(['maxmemory', '0']);
    expect((run('CONFIG', 'GET', 'nosuch') as MapReply).flat).toEqual([]);
  });

  it('CONFIG SET with an odd number of arguments is a syntax error', () => {
    const { run } = setup();
    expect(text(run('CONFIG', 'SET', 'maxmemory', '1', 'hz'))).toBe('-ERR syntax error');
  });

  it('protected parameters need enable-protected-configs', () => {
    expect(text(setup().run('CONFIG', 'SET', 'dir', '/tmp'))).toBe(
      "-ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config",
    );
    const { run } = setup({ 'enable-protected-configs': 'yes' });
    expect(text(run('CONFIG', 'SET', 'dbfilename', 'other.rdb'))).toBe('OK');
    expect(text(run('CONFIG', 'SET', 'dbfilename', 'a/b.rdb'))).toBe(
      "-ERR CONFIG SET failed (possibly related to argument 'dbfilename') - dbfilename can't be a path, just a filename",
    );
  });

  it('encoding thresholds changed by CONFIG SET take effect', () => {
    const { run } = setup();
    run('CONFIG', 'SET', 'hash-max-ziplist-entries', '2');
    run('HSET', 'h', 'a', '1', 'b', '2', 'c', '3');
    expect(run('OBJECT', 'ENCODING', 'h')).toBe('hashtable');
  });

  it('CONFIG RESETSTAT zeroes stats, commandstats and errorstats', () => {
    const { server, run } = setup();
    run('GET', 'k');
    run('NOSUCH');
    run('CONFIG', 'RESETSTAT');
    expect(server.stats.errors.size).toBe(0);
    expect(server.stats.keyspaceMisses).toBe(0);
    expect(server.commands.get('get')!.calls).toBe(0);
    expect(server.stats.totalCommandsProcessed).toBe(1);
  });

  it('CONFIG REWRITE without a config file', () => {
    expect(text(setup().run('CONFIG', 'REWRITE'))).toBe('-ERR The server is running without a config file');
  });

  it('CONFIG HELP starts with the command name as typed', () => {
    const r = setup().run('config', 'help') as Reply[];
    expect(text(r[0]!)).toBe('CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:');
    expect(text(r[r.length - 2]!)).toBe('HELP');
  });
});
