import { describe, expect, it } from 'vitest';
import { Config, ConfigError } from '../../../emulator/server/config.js';
import { CONFIG_PARAMS, memtoull, strtoll } from '../../../emulator/server/config-params.js';
import { createServer } from '../../../emulator/process/create-server.js';
import { ManualClock } from '../../../emulator/sim/clock.js';

/**
 * CONFIG GET * of a fresh redis-server 7.0.15 started without a config file
 * (less dir and port, which depend on how it was started).
 */
const REAL_DEFAULTS: ReadonlyArray<readonly [string, string]> = [
  ['acl-pubsub-default', 'resetchannels'],
  ['aclfile', ''],
  ['acllog-max-len', '128'],
  ['active-defrag-cycle-max', '25'],
  ['active-defrag-cycle-min', '1'],
  ['active-defrag-ignore-bytes', '104857600'],
  ['active-defrag-max-scan-fields', '1000'],
  ['active-defrag-threshold-lower', '10'],
  ['active-defrag-threshold-upper', '100'],
  ['active-expire-effort', '1'],
  ['activedefrag', 'no'],
  ['activerehashing', 'yes'],
  ['always-show-logo', 'no'],
  ['aof-disable-auto-gc', 'no'],
  ['aof-load-truncated', 'yes'],
  ['aof-rewrite-incremental-fsync', 'yes'],
  ['aof-timestamp-enabled', 'no'],
  ['aof-use-rdb-preamble', 'yes'],
  ['aof_rewrite_cpulist', ''],
  ['appenddirname', 'appendonlydir'],
  ['appendfilename', 'appendonly.aof'],
  ['appendfsync', 'everysec'],
  ['appendonly', 'no'],
  ['auto-aof-rewrite-min-size', '67108864'],
  ['auto-aof-rewrite-percentage', '100'],
  ['bgsave_cpulist', ''],
  ['bind', '* -::*'],
  ['bind-source-addr', ''],
  ['bio_cpulist', ''],
  ['busy-reply-threshold', '5000'],
  ['client-output-buffer-limit', 'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60'],
  ['client-query-buffer-limit', '1073741824'],
  ['cluster-allow-pubsubshard-when-down', 'yes'],
  ['cluster-allow-reads-when-down', 'no'],
  ['cluster-allow-replica-migration', 'yes'],
  ['cluster-announce-bus-port', '0'],
  ['cluster-announce-hostname', ''],
  ['cluster-announce-ip', ''],
  ['cluster-announce-port', '0'],
  ['cluster-announce-tls-port', '0'],
  ['cluster-config-file', 'nodes.conf'],
  ['cluster-enabled', 'no'],
  ['cluster-link-sendbuf-limit', '0'],
  ['cluster-migration-barrier', '1'],
  ['cluster-node-timeout', '15000'],
  ['cluster-port', '0'],
  ['cluster-preferred-endpoint-type', 'ip'],
  ['cluster-replica-no-failover', 'no'],
  ['cluster-replica-validity-factor', '10'],
  ['cluster-require-full-coverage', 'yes'],
  ['cluster-slave-no-failover', 'no'],
  ['cluster-slave-validity-factor', '10'],
  ['crash-log-enabled', 'yes'],
  ['crash-memcheck-enabled', 'yes'],
  ['daemonize', 'no'],
  ['databases', '16'],
  ['dbfilename', 'dump.rdb'],
  ['disable-thp', 'yes'],
  ['dynamic-hz', 'yes'],
  ['enable-debug-command', 'no'],
  ['enable-module-command', 'no'],
  ['enable-protected-configs', 'no'],
  ['hash-max-listpack-entries', '512'],
  ['hash-max-listpack-value', '64'],
  ['hash-max-ziplist-entries', '512'],
  ['hash-max-ziplist-value', '64'],
  ['hll-sparse-max-bytes', '3000'],
  ['hz', '10'],
  ['ignore-warnings', ''],
  ['io-threads', '1'],
  ['io-threads-do-reads', 'no'],
  ['jemalloc-bg-thread', 'yes'],
  ['latency-monitor-threshold', '0'],
  ['latency-tracking', 'yes'],
  ['latency-tracking-info-percentiles', '50 99 99.9'],
  ['lazyfree-lazy-eviction', 'no'],
  ['lazyfree-lazy-expire', 'no'],
  ['lazyfree-lazy-server-del', 'no'],
  ['lazyfree-lazy-user-del', 'no'],
  ['lazyfree-lazy-user-flush', 'no'],
  ['lfu-decay-time', '1'],
  ['lfu-log-factor', '10'],
  ['list-compress-depth', '0'],
  ['list-max-listpack-size', '-2'],
  ['list-max-ziplist-size', '-2'],
  ['logfile', ''],
  ['loglevel', 'notice'],
  ['lua-time-limit', '5000'],
  ['masterauth', ''],
  ['masteruser', ''],
  ['maxclients', '10000'],
  ['maxmemory', '0'],
  ['maxmemory-clients', '0'],
  ['maxmemory-eviction-tenacity', '10'],
  ['maxmemory-policy', 'noeviction'],
  ['maxmemory-samples', '5'],
  ['min-replicas-max-lag', '10'],
  ['min-replicas-to-write', '0'],
  ['min-slaves-max-lag', '10'],
  ['min-slaves-to-write', '0'],
  ['no-appendfsync-on-rewrite', 'no'],
  ['notify-keyspace-events', ''],
  ['oom-score-adj', 'no'],
  ['oom-score-adj-values', '0 200 800'],
  ['pidfile', ''],
  ['proc-title-template', '{title} {listen-addr} {server-mode}'],
  ['propagation-error-behavior', 'ignore'],
  ['protected-mode', 'yes'],
  ['proto-max-bulk-len', '536870912'],
  ['rdb-del-sync-files', 'no'],
  ['rdb-save-incremental-fsync', 'yes'],
  ['rdbchecksum', 'yes'],
  ['rdbcompression', 'yes'],
  ['repl-backlog-size', '1048576'],
  ['repl-backlog-ttl', '3600'],
  ['repl-disable-tcp-nodelay', 'no'],
  ['repl-diskless-load', 'disabled'],
  ['repl-diskless-sync', 'yes'],
  ['repl-diskless-sync-delay', '5'],
  ['repl-diskless-sync-max-replicas', '0'],
  ['repl-ping-replica-period', '10'],
  ['repl-ping-slave-period', '10'],
  ['repl-timeout', '60'],
  ['replica-announce-ip', ''],
  ['replica-announce-port', '0'],
  ['replica-announced', 'yes'],
  ['replica-ignore-disk-write-errors', 'no'],
  ['replica-ignore-maxmemory', 'yes'],
  ['replica-lazy-flush', 'no'],
  ['replica-priority', '100'],
  ['replica-read-only', 'yes'],
  ['replica-serve-stale-data', 'yes'],
  ['replicaof', ''],
  ['requirepass', ''],
  ['sanitize-dump-payload', 'no'],
  ['save', '3600 1 300 100 60 10000'],
  ['server_cpulist', ''],
  ['set-max-intset-entries', '512'],
  ['set-proc-title', 'yes'],
  ['shutdown-on-sigint', 'default'],
  ['shutdown-on-sigterm', 'default'],
  ['shutdown-timeout', '10'],
  ['slave-announce-ip', ''],
  ['slave-announce-port', '0'],
  ['slave-ignore-maxmemory', 'yes'],
  ['slave-lazy-flush', 'no'],
  ['slave-priority', '100'],
  ['slave-read-only', 'yes'],
  ['slave-serve-stale-data', 'yes'],
  ['slaveof', ''],
  ['slowlog-log-slower-than', '10000'],
  ['slowlog-max-len', '128'],
  ['socket-mark-id', '0'],
  ['stop-writes-on-bgsave-error', 'yes'],
  ['stream-node-max-bytes', '4096'],
  ['stream-node-max-entries', '100'],
  ['supervised', 'no'],
  ['syslog-enabled', 'no'],
  ['syslog-facility', 'local0'],
  ['syslog-ident', 'redis'],
  ['tcp-backlog', '511'],
  ['tcp-keepalive', '300'],
  ['timeout', '0'],
  ['tls-auth-clients', 'yes'],
  ['tls-ca-cert-dir', ''],
  ['tls-ca-cert-file', ''],
  ['tls-cert-file', ''],
  ['tls-ciphers', ''],
  ['tls-ciphersuites', ''],
  ['tls-client-cert-file', ''],
  ['tls-client-key-file', ''],
  ['tls-client-key-file-pass', ''],
  ['tls-cluster', 'no'],
  ['tls-dh-params-file', ''],
  ['tls-key-file', ''],
  ['tls-key-file-pass', ''],
  ['tls-port', '0'],
  ['tls-prefer-server-ciphers', 'no'],
  ['tls-protocols', ''],
  ['tls-replication', 'no'],
  ['tls-session-cache-size', '20480'],
  ['tls-session-cache-timeout', '300'],
  ['tls-session-caching', 'yes'],
  ['tracking-table-max-keys', '1000000'],
  ['unixsocket', ''],
  ['unixsocketperm', '0'],
  ['zset-max-listpack-entries', '128'],
  ['zset-max-listpack-value', '64'],
  ['zset-max-ziplist-entries', '128'],
  ['zset-max-ziplist-value', '64'],
];

function fresh(startup: Record<string, string> = {}): Config {
  return createServer({ clock: new ManualClock(), config: startup }).config;
}

describe('configuration parameters', () => {
  it('CONFIG GET * lists the 192 names of a fresh 7.0.15 server with their defaults', () => {
    const listed = new Map(fresh().match(['*']));
    expect(listed.size).toBe(192);
    for (const [name, value] of REAL_DEFAULTS) expect([name, listed.get(name)]).toEqual([name, value]);
  });

  it('hidden parameters answer only to their exact name', () => {
    const config = fresh();
    for (const name of ['rdb-key-save-delay', 'key-load-delay', 'watchdog-period', 'use-exit-on-panic', 'loading-process-events-interval-bytes']) {
      expect(config.match([name]).length).toBe(1);
      expect(config.match([name.slice(0, 5) + '*']).some(([n]) => n === name)).toBe(false);
    }
    expect(CONFIG_PARAMS.length).toBe(178);
  });

  it('the port defaults to the port the server listens on', () => {
    const server = createServer({ clock: new ManualClock(), port: 7777 });
    expect(server.config.get('port')).toBe('7777');
  });

  it('startup configuration may set immutable parameters, and refuses bad values', () => {
    expect(fresh({ databases: '4' }).get('databases')).toBe('4');
    expect(() => fresh({ databases: '0' })).toThrow(ConfigError);
    expect(() => fresh({ nosuch: 'x' })).toThrow(ConfigError);
  });
});

describe('memtoull and strtoll', () => {
  it('memory values with units, like src/util.c memtoull', () => {
    expect(memtoull('1gb')).toBe(1073741824n);
    expect(memtoull('1G')).toBe(1000000000n);
    expect(memtoull('3Kb')).toBe(3072n);
    expect(memtoull('')).toBe(0n);
    expect(memtoull('mb')).toBe(0n);
    expect(memtoull('-1')).toBeNull();
    expect(memtoull('1tb')).toBeNull();
    expect(memtoull('99999999999999999999')).toBe(18446744073709551615n);
    // The multiplication wraps around 2^64.
    expect(memtoull('17179869184gb')).toBe(0n);
  });

  it('strtoll skips leading space, takes a sign and saturates', () => {
    expect(strtoll(' +12')).toEqual({ value: 12n, complete: true });
    expect(strtoll('12x')).toEqual({ value: 12n, complete: false });
    expect(strtoll('')).toEqual({ value: 0n, complete: true });
    expect(strtoll('99999999999999999999').value).toBe(9223372036854775807n);
  });
});

describe('CONFIG SET semantics', () => {
  it('sets several parameters at once, or none of them', () => {
    const config = fresh();
    expect(config.setMany([['maxmemory', '1mb'], ['hz', '20']])).toBeNull();
    expect(config.get('maxmemory')).toBe('1048576');
    expect(config.getNumber('hz')).toBe(20);
    expect(config.setMany([['maxmemory', '2mb'], ['hz', 'x']])).toBe(
      "CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an integer",
    );
    expect(config.get('maxmemory')).toBe('1048576');
  });

  it('an alias and its parameter are different entries for the duplicate check', () => {
    const config = fresh();
    expect(config.setMany([['hash-max-ziplist-entries', '10'], ['hash-max-listpack-entries', '20']])).toBeNull();
    expect(config.getNumber('hash-max-listpack-entries')).toBe(20);
    expect(config.setMany([['hz', '1'], ['HZ', '2']])).toBe("CONFIG SET failed (possibly related to argument 'HZ') - duplicate parameter");
  });

  it('errors quote the name the parameter was reached by', () => {
    expect(fresh().set('list-max-ziplist-size', 'x')).toBe(
      "CONFIG SET failed (possibly related to argument 'list-max-ziplist-size') - argument couldn't be parsed into an integer",
    );
  });

  it('hz outside 1..500 is accepted and capped', () => {
    const config = fresh();
    config.set('hz', '0');
    expect(config.get('hz')).toBe('1');
    config.set('hz', '100000');
    expect(config.getNumber('hz')).toBe(500);
  });

  it('apply hooks see each change once, and the old value again when a later check fails', () => {
    const config = fresh();
    const seen: Array<[string, string]> = [];
    config.onApply('appendonly', (v, prev) => {
      seen.push([v, prev]);
      return null;
    });
    expect(config.setMany([['appendonly', 'yes'], ['tls-port', '7000']])).toMatch(/Unable to update TLS configuration/);
    expect(config.get('appendonly')).toBe('no');
    expect(seen).toEqual([['yes', 'no'], ['no', 'yes']]);
    seen.length = 0;
    expect(config.set('appendonly', 'no')).toBeNull();
    expect(seen).toEqual([]);
  });

  it('a hook can refuse a change', () => {
    const config = fresh();
    config.onApply('maxmemory-policy', (v) => (v === 'allkeys-lfu' ? 'no LFU today' : null));
    expect(config.set('maxmemory-policy', 'allkeys-lfu')).toBe(
      "CONFIG SET failed (possibly related to argument 'maxmemory-policy') - no LFU today",
    );
    expect(config.get('maxmemory-policy')).toBe('noeviction');
  });

  it('canonical forms: enums by value, bit flags in table order, percentages', () => {
    const config = fresh();
    config.set('oom-score-adj', 'relative');
    expect(config.get('oom-score-adj')).toBe('yes');
    config.set('shutdown-on-sigterm', 'now save');
    expect(config.get('shutdown-on-sigterm')).toBe('save now');
    config.set('maxmemory-clients', '10%');
    expect(config.get('maxmemory-clients')).toBe('10%');
    expect(config.getNumber('maxmemory-clients')).toBe(-10);
    config.set('notify-keyspace-events', 'KEA');
    expect(config.get('notify-keyspace-events')).toBe('AKE');
  });
});
