/**
 * The emulator's public API: a server, RESP, the in-process client, command
 * keys and redis.conf reading, for Node programs, the lessons and the code
 * cells. src/ imports the emulator only through this door and its fronts
 * (the DOOR list in .dependency-cruiser.cjs, docs/architecture.md); the
 * page's first load uses the light fronts, never this module, whose exports
 * would add to its JavaScript.
 */
export { RedisServer, type ServerOptions, type PropagationListener } from './server/server.js';
export { createServer, type CreateServerOptions } from './process/create-server.js';
export { Client } from './server/client.js';
export { ServerConnection } from './server/connection.js';
export { ConfigError } from './server/config.js';
export { ManualClock, DEFAULT_EPOCH_US, type Clock } from './sim/clock.js';
export { Random } from './sim/random.js';
export { DirectClient } from './client-library/direct.js';
export { argToBytes } from './client-library/values.js';
export { ReplyError } from './client-library/reply-error.js';
export * from './resp/reply.js';
export { encodeReply, encodeCommand, type Protocol } from './resp/encode.js';
export { RequestParser, ProtocolError, type ByteDecoder } from './resp/request-parser.js';
export { ReplyParser } from './resp/reply-parser.js';
export { splitArgs } from './resp/split-args.js';
export { utf8ToBytes, bytesToUtf8, bytesFromArray, bytesToArray, asciiLower, repr, useHostByteCodec, type ByteCodec } from './resp/bytes.js';
export { useHostSha1, type HostSha1 } from './numbers/sha1.js';
export { commandKeys } from './commands/command-keys.js';
export { configFromCommandLine, readConfigText } from './server/command-line.js';
export { loadServerConfig, type ConfigSource, type ConfigLoad, type StartConfig } from './server/config-loader.js';
