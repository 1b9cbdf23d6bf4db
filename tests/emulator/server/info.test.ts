import { describe, expect, it } from 'vitest';
import { bytesToHuman, infoText, printfFixed, setInfoSection, usedMemory } from '../../../emulator/server/info.js';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';
import { ErrorReply, VerbatimReply, type Reply } from '../../../emulator/resp/reply.js';

function setup() {
  const clock = new ManualClock(1_767_225_600_000_000);
  const server = createServer({ clock });
  const c = server.connect();
  const run = (...argv: string[]): Reply => server.execute(c, argv);
  const info = (...sections: string[]): string => (run('INFO', ...sections) as VerbatimReply).text;
  /** Values of fields, all read from one INFO call. */
  const fields = (...names: string[]): Array<string | undefined> => {
    const text = '\r\n' + info('everything');
    return names.map((name) => new RegExp(`\\r\\n${name}:([^\\r]*)\\r\\n`).exec(text)?.[1]);
  };
  const field = (name: string): string | undefined => fields(name)[0];
  return { clock, server, c, run, info, field, fields };
}

function headers(text: string): string[] {
  return text.split('\r\n').filter((l) => l.startsWith('# '));
}

describe('INFO formatting helpers', () => {
  it('printf %.2f rounds exact ties to even', () => {
    expect(printfFixed(1.125, 2)).toBe('1.12');
    expect(printfFixed(1.375, 2)).toBe('1.38');
    expect(printfFixed(0.005, 2)).toBe('0.01');
    expect(printfFixed(2.5, 0)).toBe('2');
    expect(printfFixed(0.001, 3)).toBe('0.001');
  });

  it('bytesToHuman as src/server.c prints sizes', () => {
    expect(bytesToHuman(0)).toBe('0B');
    expect(bytesToHuman(1023)).toBe('1023B');
    expect(bytesToHuman(1536)).toBe('1.50K');
    expect(bytesToHuman(1152)).toBe('1.12K');
    expect(bytesToHuman(1048576)).toBe('1.00M');
    expect(bytesToHuman(8 * 1024 ** 3)).toBe('8.00G');
  });
});

describe('INFO sections', () => {
  it('the default sections, in order', () => {
    const { info } = setup();
    expect(headers(info())).toEqual([
      '# Server', '# Clients', '# Memory', '# Persistence', '# Stats', '# Replication', '# CPU', '# Modules', '# Errorstats', '# Cluster', '# Keyspace',
    ]);
    expect(headers(info('default'))).toEqual(headers(info()));
  });

  it('all and everything add commandstats and latencystats', () => {
    const { info } = setup();
    expect(headers(info('all'))).toEqual([
      '# Server', '# Clients', '# Memory', '# Persistence', '# Stats', '# Replication', '# CPU', '# Modules', '# Commandstats',
      '# Errorstats', '# Latencystats', '# Cluster', '# Keyspace',
    ]);
    expect(headers(info('everything'))).toEqual(headers(info('all')));
  });

  it('several sections come back once each, in INFO order, whatever the case', () => {
    const { info } = setup();
    expect(headers(info('KEYSPACE', 'cluster', 'Keyspace'))).toEqual(['# Cluster', '# Keyspace']);
    expect(info('nosuch')).toBe('');
    expect(info('cluster')).toBe('# Cluster\r\ncluster_enabled:0\r\n');
  });

  it('INFO is verbatim text', () => {
    const { run } = setup();
    expect(run('INFO')).toBeInstanceOf(VerbatimReply);
  });

  it('a subsystem can describe its own section', () => {
    const { server, info } = setup();
    setInfoSection(server, 'replication', () => 'role:slave\r\n');
    expect(info('replication')).toBe('# Replication\r\nrole:slave\r\n');
  });
});

describe('INFO values', () => {
  it('uptime follows the virtual clock', () => {
    const { clock, field } = setup();
    expect(field('uptime_in_seconds')).toBe('0');
    clock.advanceMs(90_061_000);
    expect(field('uptime_in_seconds')).toBe('90061');
    expect(field('uptime_in_days')).toBe('1');
  });

  it('keyspace lists non-empty databases with keys and expires', () => {
    const { run, info } = setup();
    run('SET', 'a', '1');
    run('SET', 'b', '1', 'EX', '100');
    run('SELECT', '2');
    run('SET', 'c', '1');
    expect(info('keyspace')).toBe('# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl=0\r\ndb2:keys=1,expires=0,avg_ttl=0\r\n');
  });

  it('errorstats are sorted by error code and counted', () => {
    const { run, info } = setup();
    run('NOSUCH');
    run('SET', 'k', 'v');
    run('LPUSH', 'k', 'x');
    run('GET');
    expect(info('errorstats')).toBe('# Errorstats\r\nerrorstat_ERR:count=2\r\nerrorstat_WRONGTYPE:count=1\r\n');
  });

  it('commandstats count calls, failures and rejections', () => {
    const { run, info } = setup();
    run('CONFIG', 'RESETSTAT');
    run('GET', 'k');
    run('GET');
    run('SET', 'k', 'v');
    run('LPUSH', 'k', 'x');
    const text = info('commandstats');
    expect(text).toContain('cmdstat_get:calls=1,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0\r\n');
    expect(text).toContain('cmdstat_lpush:calls=1,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=1\r\n');
    expect(text).toContain('cmdstat_config|resetstat:calls=1,');
  });

  it('stats follow keyspace hits and misses; CONFIG RESETSTAT zeroes them', () => {
    const { run, fields } = setup();
    run('SET', 'k', 'v');
    run('GET', 'k');
    run('GET', 'nope');
    expect(fields('keyspace_hits', 'keyspace_misses')).toEqual(['1', '1']);
    expect(run('CONFIG', 'RESETSTAT')).not.toBeInstanceOf(ErrorReply);
    expect(fields('keyspace_hits', 'keyspace_misses', 'total_commands_processed')).toEqual(['0', '0', '1']);
  });

  it('used_memory grows with the data and shrinks after FLUSHALL', () => {
    const { server, run } = setup();
    const empty = usedMemory(server);
    for (let i = 0; i < 1000; i++) run('SET', `key:${i}`, 'x'.repeat(100));
    const full = usedMemory(server);
    expect(full - empty).toBeGreaterThan(1000 * 100);
    run('FLUSHALL');
    expect(usedMemory(server)).toBe(empty);
  });

  it('used_memory counts a key as MEMORY USAGE does', () => {
    const { server, run } = setup();
    const empty = usedMemory(server);
    run('SET', 'k', 'x'.repeat(100));
    const usage = run('MEMORY', 'USAGE', 'k') as number;
    expect(usedMemory(server) - empty).toBeGreaterThanOrEqual(usage);
  });

  it('persistence reports a server that never saved', () => {
    const { run, field, server } = setup();
    run('SET', 'a', '1');
    expect(field('rdb_changes_since_last_save')).toBe('1');
    expect(field('rdb_last_save_time')).toBe(String(Math.floor(server.startMs / 1000)));
    expect(field('rdb_last_bgsave_status')).toBe('ok');
    expect(field('aof_enabled')).toBe('0');
    expect(field('aof_current_size')).toBeUndefined();
    run('CONFIG', 'SET', 'appendonly', 'yes');
    expect(field('aof_enabled')).toBe('1');
    expect(field('aof_current_size')).toBe('0');
  });

  it('replication describes a master without replicas', () => {
    const { server, field, run } = setup();
    expect(field('role')).toBe('master');
    expect(field('master_replid')).toBe(server.replication.replId);
    run('DEBUG', 'CHANGE-REPL-ID');
    expect(field('master_replid')).toBe(server.replication.replId);
  });

  it('latencystats report the 1 ns floor of a command that takes no virtual time', () => {
    const { run, server } = setup();
    run('CONFIG', 'RESETSTAT');
    run('PING');
    expect(infoText(server, ['latencystats'])).toContain('latency_percentiles_usec_ping:p50=0.001,p99=0.001,p99.9=0.001\r\n');
    run('CONFIG', 'SET', 'latency-tracking', 'no');
    expect(infoText(server, ['latencystats'])).toBe('# Latencystats\r\n');
  });
});
