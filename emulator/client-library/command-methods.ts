import { COMMAND_NAMES } from './command-names.js';
import type { Arg } from './values.js';

/**
 * Gives a client class a method per Redis command, as ioredis does:
 * `client.hset('h', 'f', 'v')` is `client.call('hset', 'h', 'f', 'v')`.
 * A method the class defines itself (call, quit, multi...) stays its own.
 *
 *   addCommandMethods(Redis.prototype);
 */
export function addCommandMethods(proto: { call(command: string, ...args: Arg[]): unknown }): void {
  for (const name of COMMAND_NAMES) {
    if (name in proto) continue;
    Object.defineProperty(proto, name, {
      value: function (this: typeof proto, ...args: Arg[]) {
        return this.call(name, ...args);
      },
      writable: true,
      configurable: true,
    });
  }
}
