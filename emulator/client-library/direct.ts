import type { RedisServer } from '../server/server.js';
import type { Client } from '../server/client.js';
import { ErrorReply, OK } from '../resp/reply.js';
import { BLOCKED } from '../server/blocking.js';
import { ReplyError } from './reply-error.js';
import { argToBytes, replyToValue, type Arg, type ClientValue } from './values.js';

/**
 * An in-process client: calls go straight to the server's dispatcher with no
 * encoding, no network and no virtual time. For tests, benchmarks and the
 * terminal when no simulated network is wanted.
 *
 *   const r = new DirectClient(server);
 *   await r.call('SET', 'k', 'v');   // 'OK'
 *   await r.get('k');                // 'v'
 */
export class DirectClient {
  readonly client: Client;

  constructor(readonly server: RedisServer) {
    this.client = server.connect();
  }

  /** Runs a command; resolves its value or rejects with a ReplyError. */
  call(...args: Arg[]): Promise<ClientValue> {
    // The rest parameter is an array of this call's own: its arguments
    // become byte strings in place, and it is the command's argv.
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (typeof a !== 'string' || !isPlainAscii(a)) args[i] = argToBytes(a);
    }
    const argv = args as string[];
    const reply = this.server.execute(this.client, argv);
    if (this.server.blocking.hasResumes) this.server.blocking.resumeUnblocked();
    if (reply === OK) return RESOLVED_OK;
    if (reply === BLOCKED) {
      // A blocking command: the answer comes when the client is served or times out.
      return new Promise((resolve, reject) => {
        this.client.onAsyncReply = (r) => {
          this.client.onAsyncReply = null;
          if (r instanceof ErrorReply) reject(new ReplyError(r.message));
          else resolve(replyToValue(r));
        };
      });
    }
    if (reply instanceof ErrorReply) return Promise.reject(new ReplyError(reply.message));
    if (typeof reply === 'string') return Promise.resolve(isPlainAscii(reply) ? reply : replyToValue(reply));
    return Promise.resolve(typeof reply === 'number' || reply === null ? reply : replyToValue(reply));
  }

  get(key: Arg): Promise<ClientValue> {
    return this.call('GET', key);
  }

  set(key: Arg, value: Arg, ...options: Arg[]): Promise<ClientValue> {
    return this.call('SET', key, value, ...options);
  }

  incr(key: Arg): Promise<ClientValue> {
    return this.call('INCR', key);
  }

  lpush(key: Arg, ...values: Arg[]): Promise<ClientValue> {
    return this.call('LPUSH', key, ...values);
  }

  hset(key: Arg, ...fieldsAndValues: Arg[]): Promise<ClientValue> {
    return this.call('HSET', key, ...fieldsAndValues);
  }

  zadd(key: Arg, ...scoresAndMembers: Arg[]): Promise<ClientValue> {
    return this.call('ZADD', key, ...scoresAndMembers);
  }

  zrange(key: Arg, start: Arg, stop: Arg, ...options: Arg[]): Promise<ClientValue> {
    return this.call('ZRANGE', key, start, stop, ...options);
  }

  /** Closes the connection. */
  quit(): void {
    this.server.disconnect(this.client);
  }
}

const RESOLVED_OK: Promise<ClientValue> = Promise.resolve('OK');

function isPlainAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}
