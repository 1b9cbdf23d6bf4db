import {
  AttributeReply,
  FramesReply,
  PushReply,
  BigNumberReply,
  BoolReply,
  DoubleReply,
  ErrorReply,
  MapReply,
  OK,
  SetReply,
  StatusReply,
  VerbatimReply,
  errorReply,
  type Reply,
} from '../resp/reply.js';
import { encodingOf } from '../keyspace/values.js';
import type { Client } from '../server/client.js';
import { memtoull, strtoll } from '../server/config-params.js';
import { parseInt64 } from '../numbers/int64.js';
import { opt } from './args.js';
import { helpReply, subcommandSyntaxError } from './command-help.js';
import { datasetDigest, valueDigest } from './debug-digest.js';
import { debugObjectText, sdsLenText } from './debug-object.js';
import { debugReload } from '../persistence/debug-reload.js';
import { NOT_INTEGER, NO_SUCH_KEY } from '../server/errors.js';
import { debugSettings } from '../server/debug-settings.js';
import type { Handler } from '../server/command-table.js';
import { cString } from '../numbers/c-string.js';

/**
 * DEBUG (src/debug.c): the subcommands Redis's own test suite and tools
 * use. The ones that crash or restart the process are not emulated.
 */

/**
 * What the persistence engine provides to DEBUG RELOAD and DEBUG LOADAOF.
 * Until it registers, both answer the errors of a server that cannot save
 * or load. RELOAD starts with the in-memory RDB round trip.
 */
export const debugPersistence: {
  reload?: (c: Client, opts: { flush: boolean; save: boolean; merge: boolean }) => Reply;
  loadAof?: (c: Client) => Reply;
} = { reload: debugReload };

/** atoi: leading digits only, 0 when none. */
function atoi(s: string): number {
  const m = /^\s*[+-]?\d+/.exec(s);
  return m ? Number(BigInt.asIntN(32, strtoll(m[0]).value)) : 0;
}

/** getPositiveLongFromObjectOrReply: one message for a non-integer and a negative value alike. */
function positiveLong(arg: string): number | Reply {
  const v = parseInt64(arg);
  if (v === null || v < 0) return errorReply('value is out of range, must be positive');
  return Number(v);
}

function populate(c: Client, argv: string[]): Reply {
  const count = positiveLong(argv[2]!);
  if (typeof count !== 'number') return count;
  let size = 0;
  if (argv.length === 5) {
    const s = positiveLong(argv[4]!);
    if (typeof s !== 'number') return s;
    size = s;
  }
  const prefix = argv.length >= 4 ? cString(argv[3]!) : 'key';
  const db = c.db;
  for (let j = 0; j < count; j++) {
    const key = `${prefix}:${j}`.slice(0, 127);
    if (db.lookupWrite(key) !== undefined) continue;
    let value = `value:${j}`;
    if (size !== 0) value = size <= value.length ? value.slice(0, size) : value + '\0'.repeat(size - value.length);
    db.add(key, value);
    c.server.keyModified(db, key);
  }
  return OK;
}

function protocol(c: Client, name: string): Reply {
  switch (opt(name)) {
    case 'string':
      return 'Hello World';
    case 'integer':
      return 12345;
    case 'double':
      return new DoubleReply(3.141);
    case 'bignum':
      return new BigNumberReply('1234567999999999999999999999999999999');
    case 'null':
      return null;
    case 'array':
      return [0, 1, 2];
    case 'set':
      return new SetReply([0, 1, 2]);
    case 'map':
      return new MapReply([0, BoolReply.FALSE, 1, BoolReply.TRUE, 2, BoolReply.FALSE]);
    case 'attrib':
      // Attributes are not replies of their own: a real reply follows.
      return new AttributeReply(['key-popularity', ['key:123', 90]], 'Some real reply following the attribute');
    case 'push':
      if (c.resp < 3) return errorReply('RESP2 is not supported by this command');
      // A push is not a reply either; the real one follows it.
      return new FramesReply([new PushReply(['server-cpu-usage', 42]), 'Some real reply following the push reply']);
    case 'true':
      return BoolReply.TRUE;
    case 'false':
      return BoolReply.FALSE;
    case 'verbatim':
      return new VerbatimReply('This is a verbatim\nstring');
    default:
      return errorReply(
        'Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false',
      );
  }
}

/** dictGetStats for a table of n keys, with buckets filled by a stable hash of the keys. */
function tableStats(keys: Iterable<string>, n: number): string {
  if (n === 0) return 'Hash table 0 stats (main hash table):\nNo stats available for empty dictionaries\n';
  let size = 4;
  while (size < n) size *= 2;
  const chains = new Uint32Array(size);
  for (const k of keys) {
    let h = 0x811c9dc5;
    for (let i = 0; i < k.length; i++) h = Math.imul(h ^ k.charCodeAt(i), 0x01000193) >>> 0;
    chains[h & (size - 1)]!++;
  }
  const dist = new Map<number, number>();
  let slots = 0;
  let maxChain = 0;
  for (const len of chains) {
    dist.set(len, (dist.get(len) ?? 0) + 1);
    if (len > 0) slots++;
    if (len > maxChain) maxChain = len;
  }
  const avg = (n / slots).toFixed(2);
  let out =
    'Hash table 0 stats (main hash table):\n' +
    ` table size: ${size}\n` +
    ` number of elements: ${n}\n` +
    ` different slots: ${slots}\n` +
    ` max chain length: ${maxChain}\n` +
    ` avg chain length (counted): ${avg}\n` +
    ` avg chain length (computed): ${avg}\n` +
    ' Chain length distribution:\n';
  for (let len = 0; len <= maxChain; len++) {
    const count = dist.get(len);
    if (count) out += `   ${len}: ${count} (${((count * 100) / size).toFixed(2)}%)\n`;
  }
  return out;
}

function debug(c: Client, argv: string[]): Reply {
  const sub = opt(argv[1]!);
  const argc = argv.length;
  const server = c.server;
  switch (sub) {
    case 'help':
      if (argc === 2) return debugHelp(argv);
      break;
    case 'log':
    case 'leak':
      if (argc === 3) return OK;
      break;
    case 'reload': {
      const opts = { flush: true, save: true, merge: false };
      for (let j = 2; j < argc; j++) {
        const o = opt(argv[j]!);
        if (o === 'merge') opts.merge = true;
        else if (o === 'noflush') opts.flush = false;
        else if (o === 'nosave') opts.save = false;
        else return errorReply('DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.');
      }
      if (debugPersistence.reload) return debugPersistence.reload(c, opts);
      // Without persistence the save fails first (a plain -ERR), or the load does.
      return opts.save ? new ErrorReply('ERR') : errorReply('Error trying to load the RDB dump');
    }
    case 'loadaof': {
      const aof = server.aof;
      if (aof !== null) {
        if (aof.debugLoadAof()) return OK;
        // Redis exits when the files cannot be loaded.
        if (server.shutdownHook !== null) server.shutdownHook({ nosave: true, save: false, now: true, force: true }, c);
        return new FramesReply([]);
      }
      if (debugPersistence.loadAof) return debugPersistence.loadAof(c);
      return errorReply('Error trying to load the AOF files');
    }
    case 'drop-cluster-packet-filter':
      if (argc === 3) return parseInt64(argv[2]!) === null ? NOT_INTEGER : OK;
      break;
    case 'object':
      if (argc === 3) {
        const v = c.db.dict.get(argv[2]!);
        if (v === undefined) return NO_SUCH_KEY;
        return new StatusReply(debugObjectText(server, c.db, argv[2]!, v));
      }
      break;
    case 'sdslen':
      if (argc === 3) {
        const v = c.db.dict.get(argv[2]!);
        if (v === undefined) return NO_SUCH_KEY;
        const text = sdsLenText(argv[2]!, v);
        return text === null ? errorReply('Not an sds encoded string.') : new StatusReply(text);
      }
      break;
    case 'listpack':
      if (argc === 3) {
        const v = c.db.lookupNoTouch(argv[2]!);
        if (v === undefined) return NO_SUCH_KEY;
        if (encodingOf(v) !== 'listpack') return errorReply('Not a listpack encoded object.');
        return new StatusReply('Listpack structure printed on stdout');
      }
      break;
    case 'quicklist':
      if (argc === 3 || argc === 4) {
        const v = c.db.lookupNoTouch(argv[2]!);
        if (v === undefined) return NO_SUCH_KEY;
        if (encodingOf(v) !== 'quicklist') return errorReply('Not a quicklist encoded object.');
        return new StatusReply('Quicklist structure printed on stdout');
      }
      break;
    case 'populate':
      if (argc >= 3 && argc <= 5) return populate(c, argv);
      break;
    case 'digest':
      if (argc === 2) return new StatusReply(datasetDigest(server.dbs));
      break;
    case 'digest-value': {
      const out: Reply[] = [];
      for (let j = 2; j < argc; j++) out.push(new StatusReply(valueDigest(c.db, argv[j]!)));
      return out;
    }
    case 'protocol':
      if (argc === 3) return protocol(c, argv[2]!);
      break;
    case 'sleep':
      // The whole server stops for that long: the time is charged to the
      // server's thread, so in a simulated world nothing else runs and the
      // reply leaves when it ends. (strtod semantics: junk reads as 0.)
      if (argc === 3) {
        const m = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(argv[2]!);
        const seconds = m ? Number(m[0]) : 0;
        if (seconds > 0) server.stallUs += Math.floor(seconds * 1e6);
        return OK;
      }
      break;
    case 'set-active-expire':
      if (argc === 3) {
        server.activeExpireEnabled = atoi(argv[2]!) !== 0;
        return OK;
      }
      break;
    case 'quicklist-packed-threshold':
      if (argc === 3) {
        let size = memtoull(argv[2]!);
        if (size === null || size > (1n << 32n) - (1n << 20n)) {
          return errorReply('argument must be a memory value bigger than 1 and smaller than 4gb');
        }
        if (size === 0n) size = 1n << 30n;
        debugSettings(server).quicklistPackedThreshold = Number(size);
        return OK;
      }
      break;
    case 'set-skip-checksum-validation':
      if (argc === 3) {
        debugSettings(server).skipChecksumValidation = atoi(argv[2]!) !== 0;
        return OK;
      }
      break;
    case 'aof-flush-sleep':
      if (argc === 3) {
        debugSettings(server).aofFlushSleepUs = atoi(argv[2]!);
        return OK;
      }
      break;
    case 'replicate':
      if (argc >= 3) {
        server.propagate(c.db.id, argv.slice(2));
        return OK;
      }
      break;
    case 'error':
      if (argc === 3) return new ErrorReply(argv[2]!.replace(/[\r\n]/g, ' '));
      break;
    case 'structsize':
      if (argc === 2) return 'bits:64 robj:16 dictentry:24 sdshdr5:1 sdshdr8:3 sdshdr16:5 sdshdr32:9 sdshdr64:17 ';
      break;
    case 'htstats':
      if (argc === 3) {
        const id = parseInt64(argv[2]!);
        if (id === null) return NOT_INTEGER;
        if (id < 0 || id >= server.dbs.length) return errorReply('Out of range database');
        const db = server.dbs[Number(id)]!;
        return new VerbatimReply(
          '[Dictionary HT]\n' + tableStats(db.dict.keys(), db.dict.size) + '[Expires HT]\n' + tableStats(db.expires.keys(), db.expires.size),
        );
      }
      break;
    case 'htstats-key':
      if (argc === 3) {
        const v = c.db.lookupNoTouch(argv[2]!);
        if (v === undefined) return NO_SUCH_KEY;
        if (typeof v !== 'string' && (v.type === 'set' || v.type === 'hash' || v.type === 'zset') && encodingOf(v) !== 'listpack' && encodingOf(v) !== 'intset') {
          const keys = v.type === 'set' ? v.set : v.type === 'hash' ? v.map.keys() : v.dict.keys();
          const n = v.type === 'set' ? v.set.size : v.type === 'hash' ? v.map.size : v.dict.size;
          return new VerbatimReply(tableStats(keys, n));
        }
        return errorReply('The value stored at the specified key is not represented using an hash table');
      }
      break;
    case 'change-repl-id':
      if (argc === 2) {
        server.replication.debugChangeReplicationId();
        return OK;
      }
      break;
    case 'stringmatch-test':
      if (argc === 2) return new StatusReply('Apparently Redis did not crash: test passed');
      break;
    case 'set-disable-deny-scripts':
      if (argc === 3) {
        debugSettings(server).disableDenyScripts = atoi(argv[2]!) !== 0;
        return OK;
      }
      break;
    case 'config-rewrite-force-all':
      if (argc === 2) return errorReply('CONFIG-REWRITE-FORCE-ALL failed: Bad address');
      break;
    case 'client-eviction':
      if (argc === 2) {
        if (server.config.get('maxmemory-clients') === '0') return errorReply('maxmemory-clients is disabled.');
        return new VerbatimReply(clientEvictionBuckets());
      }
      break;
    case 'pause-cron':
      if (argc === 3) {
        debugSettings(server).pauseCron = atoi(argv[2]!) !== 0;
        return OK;
      }
      break;
    case 'replybuffer':
      if (argc === 4) {
        const what = opt(argv[2]!);
        const s = debugSettings(server);
        if (what === 'peak-reset-time') {
          const v = opt(argv[3]!);
          if (v === 'never') s.replyBufferPeakResetTimeMs = -1;
          else if (v === 'reset') s.replyBufferPeakResetTimeMs = 5000;
          else {
            const ms = parseInt64(argv[3]!);
            if (ms === null) return NOT_INTEGER;
            s.replyBufferPeakResetTimeMs = Number(ms);
          }
        } else if (what === 'resizing') {
          s.replyBufferResizing = atoi(argv[3]!) !== 0;
        } else {
          return subcommandSyntaxError(argv);
        }
        return OK;
      }
      break;
  }
  return subcommandSyntaxError(argv);
}

/** DEBUG CLIENT-EVICTION's table of memory buckets, all empty. */
function clientEvictionBuckets(): string {
  let out = '';
  for (let j = 0; j < 19; j++) {
    const low = j === 0 ? 0 : 2 ** (j - 1 + 15);
    out += j === 0 ? 'bucket          0' : `bucket ${String(low).padStart(10)}`;
    out += j === 18 ? '+            : ' : ` - ${String(2 ** (j + 15) - 1).padStart(10)}: `;
    out += `tot-mem: ${'0'.padStart(10)}, clients: 0\n`;
  }
  return out;
}

function debugHelp(argv: string[]): Reply {
  return helpReply(argv[0]!, [
    'CHANGE-REPL-ID',
    '    Give the server a new replication ID.',
    'DIGEST',
    '    Show a signature of the whole dataset, as 40 hex digits.',
    'DIGEST-VALUE <key> [<key> ...]',
    '    Show a signature of the value of each key.',
    'ERROR <string>',
    '    Reply with <string> as an error.',
    'HTSTATS <dbid>',
    '    Describe the hash tables of a database.',
    'HTSTATS-KEY <key>',
    '    Describe the hash table of a value.',
    'LISTPACK <key>',
    '    Dump the listpack of a value to the server output.',
    'LOG <message>',
    '    Write <message> to the server log.',
    'OBJECT <key>',
    '    Describe how the value of <key> is stored.',
    'POPULATE <count> [<prefix>] [<size>]',
    '    Create <count> string keys named <prefix>:<n> (default prefix "key").',
    'PROTOCOL <type>',
    '    Reply with a sample value of a RESP type: string, integer, double, bignum,',
    '    null, array, set, map, attrib, push, verbatim, true or false.',
    'QUICKLIST <key> [<0|1>]',
    '    Dump the quicklist of a list to the server output.',
    'QUICKLIST-PACKED-THRESHOLD <size>',
    '    Set the element size from which lists store elements in plain nodes.',
    'RELOAD [MERGE] [NOFLUSH] [NOSAVE]',
    '    Save the dataset to an RDB file and load it back.',
    'SDSLEN <key>',
    '    Describe the string buffers of a key and its value.',
    'SET-ACTIVE-EXPIRE <0|1>',
    '    Stop or restart the background expiry of keys.',
    'SLEEP <seconds>',
    '    Stop the server for a while.',
    'STRUCTSIZE',
    '    Show the sizes of the core data structures.',
  ]);
}

export const debugCommands: Record<string, Handler> = { debug };
