/**
 * A front of the door: a redis-server process as src/ sees it. The page and
 * the lessons read a host's RedisProcess (its server, its modules, its
 * state); the Node server hands it real TCP connections through an
 * external transport. createServer (a server without a process) is in
 * emulator/index.ts.
 */
export { RedisProcess, type RedisProcessOptions, type ExternalConnection } from './redis-process.js';
export { externalTransport } from './external-transport.js';
