import type { World } from '../world/world.js';
import { RedisProcess } from '../process/redis-process.js';
import { SENTINEL_FACTS, SENTINEL_HANDLERS } from './commands.js';
import { Sentinel, SentinelConfigError } from './sentinel.js';
import { configWords, parseSentinelConfig } from './config.js';

/** Options of the server itself that a sentinel.conf may set. */
const SERVER_OPTIONS = new Set(['logfile', 'loglevel', 'dir']);
import { bytesFromArray } from '../resp/bytes.js';

/** How a `spawn` of redis-sentinel starts it: `redis-sentinel <config>` (the config file's absolute path). */
export interface SentinelDaemonOptions {
  config: string;
  seed?: number;
}

/**
 * Makes `redis-sentinel` startable on the world's hosts. Redis runs
 * Sentinel as redis-server in sentinel mode (server.sentinel_mode): the
 * same event loop with sentinel's command table and no dataset, listening
 * on the config's port (26379 by default).
 */
export function registerSentinel(world: World): void {
  world.registerDaemon('redis-sentinel', (host, raw) => {
    const opts = raw as SentinelDaemonOptions;
    let port: number;
    const settings: Record<string, string> = { dir: '/' };
    try {
      const parsed = parseSentinelConfig(bytesFromArray(host.disk.readFile(opts.config)));
      port = parsed.port;
      // The server's own options in the file (logfile, loglevel, dir) apply as in redis.conf.
      for (const line of parsed.otherLines) {
        const words = configWords(line.trim());
        if (words.length === 2 && !words[0]!.startsWith('#') && SERVER_OPTIONS.has(words[0]!.toLowerCase())) settings[words[0]!.toLowerCase()] = words[1]!;
      }
    } catch (e) {
      if (e instanceof SentinelConfigError) throw new Error(`*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line ${e.lineNumber}\n>>> '${e.line}'\n${e.reason}`, { cause: e });
      // sentinelCheckConfigFile: Sentinel cannot run without a config file it can write.
      throw new Error('Sentinel needs config file on disk to save state. Exiting...', { cause: e });
    }
    const proc = host.spawn(
      new RedisProcess(host, ['redis-sentinel', `*:${port}`], {
        port,
        ...(opts.seed === undefined ? {} : { seed: opts.seed }),
        config: settings,
        sentinel: { handlers: SENTINEL_HANDLERS, extraFacts: SENTINEL_FACTS },
      }),
    );
    proc.addModule((services) => new Sentinel(services, opts.config));
    if (!proc.start()) {
      host.reap(proc, 1, 'exited');
      throw new Error(`${host.name}:${port}: Address already in use`);
    }
    return proc;
  });
}
