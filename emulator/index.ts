/**
 * The emulator's public API. src/web and src/node use only what is exported
 * here.
 */
export { RedisServer, type ServerOptions, type PropagationListener } from './server/server.js';
export { createServer, type CreateServerOptions } from './process/create-server.js';
export { Client } from './server/client.js';
export { ServerConnection } from './server/connection.js';
export { ConfigError } from './server/config.js';
export { ManualClock, DEFAULT_EPOCH_US, type Clock } from './sim/clock.js';
export { Random } from './sim/random.js';
export { DirectClient } from './client-library/direct.js';
export { ReplyError } from './client-library/reply-error.js';
export * from './resp/reply.js';
export { encodeReply, encodeCommand, type Protocol } from './resp/encode.js';
export { RequestParser, ProtocolError, type ByteDecoder } from './resp/request-parser.js';
export { ReplyParser } from './resp/reply-parser.js';
export { splitArgs } from './resp/split-args.js';
export { utf8ToBytes, bytesToUtf8, bytesFromArray, bytesToArray, asciiLower, repr } from './resp/bytes.js';
