import type { World } from '../world/world.js';
import { RedisProcess } from '../process/redis-process.js';
import { SENTINEL_FACTS, SENTINEL_HANDLERS } from './commands.js';
import { Sentinel, SentinelConfigError } from './sentinel.js';
import { configWords, parseSentinelConfig, sentinelConfigText } from './config.js';

import { bytesFromArray } from '../resp/bytes.js';
import { lookupParam } from '../server/config.js';
import { splitConfigArgs } from '../server/config-params.js';

/** How a `spawn` of redis-sentinel starts it: `redis-sentinel <config>` (the config file's absolute path). */
export interface SentinelDaemonOptions {
  config: string;
  seed?: number;
  /**
   * Options given on the command line after the file (`--port 26380`), as
   * config lines: Redis reads them after the file's own lines.
   */
  extraConfig?: string;
  /** The directory it was started in: a relative `dir` is taken from it (chdir). */
  cwd?: string;
}

/** `dir` as a path from the root, a relative one taken from `cwd`. */
function absoluteDir(dir: string, cwd: string): string {
  if (dir.startsWith('/')) return dir;
  const parts = cwd.split('/').filter((x) => x !== '');
  for (const part of dir.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '.' && part !== '') parts.push(part);
  }
  return '/' + parts.join('/');
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
      const parsed = parseSentinelConfig(sentinelConfigText(bytesFromArray(host.disk.readFile(opts.config)), opts.extraConfig));
      port = parsed.port;
      // The server's own options in the file (logfile, loglevel, dir...) apply as in redis.conf,
      // so that a rewrite of the file writes them back as they were.
      for (const line of parsed.otherLines) {
        const words = configWords(line.trim());
        if (words.length < 2 || words[0]!.startsWith('#')) continue;
        const param = lookupParam(words[0]!);
        if (param === undefined || param.name === 'save' || param.name === 'port') continue;
        const value = words.slice(1).join(' ');
        const parsed = param.parse(splitConfigArgs(param, value), param.default);
        if (typeof parsed === 'string') settings[param.name] = param.name === 'dir' ? value : parsed;
      }
      settings['dir'] = absoluteDir(settings['dir']!, opts.cwd ?? '/');
      // The scripts it names must be executable, from the directory Redis changed to.
      const dir = settings['dir'];
      parseSentinelConfig(sentinelConfigText(bytesFromArray(host.disk.readFile(opts.config)), opts.extraConfig), (path) => host.programs?.executable(path, dir) ?? false);
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
    proc.addModule((services) => new Sentinel(services, opts.config, opts.extraConfig));
    if (!proc.start()) {
      host.reap(proc, 1, 'exited');
      throw new Error(`${host.name}:${port}: Address already in use`);
    }
    return proc;
  });
}
