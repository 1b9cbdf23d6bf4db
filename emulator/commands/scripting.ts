import { MapReply, OK, SetReply, StatusReply, errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import { FunctionLibraries } from '../server/function-libraries.js';
import { globMatch } from '../keyspace/glob.js';
import { parseInt64 } from '../numbers/int64.js';
import { bytesFromArray, bytesToArray } from '../resp/bytes.js';
import { createFunctionsPayload, readFunctionsPayload, verifyDumpPayload } from '../persistence/rdb/dump-payload.js';
import { opt } from './args.js';
import { helpReply, subcommandSyntaxError } from './command-help.js';
import { debugSettings } from '../server/debug-settings.js';
import type { Handler } from '../server/command-table.js';
import { cString } from '../numbers/c-string.js';

/**
 * The scripting group's functions (src/functions.c). Libraries are kept
 * (server/function-libraries.ts) and go wherever Redis takes them: RDB
 * files, AOF rewrites, FUNCTION DUMP, replicas. The emulator has no Lua
 * engine, so FCALL of a function that exists answers an error that says
 * so rather than running it; everything else about libraries (LOAD's
 * checks, LIST, DELETE, FLUSH, DUMP, RESTORE, STATS) is Redis's.
 */

/** What FCALL answers for a function that is kept but cannot run. */
export function cannotRunMessage(fn: string, library: string): string {
  return `Function '${fn}' of library '${library}' cannot run: this emulator keeps function libraries but has no Lua engine`;
}

function functionLoad(c: Client, argv: string[]): Reply {
  let replace = false;
  let i = 2;
  for (; i < argv.length - 1; i++) {
    if (opt(argv[i]!) === 'replace') {
      replace = true;
      continue;
    }
    return errorReply(`Unknown option given: ${cString(argv[i]!)}`);
  }
  if (i >= argv.length) return errorReply('Function code is missing');
  const r = c.server.functions.create(argv[i]!, replace, false);
  if ('error' in r) return errorReply(r.error);
  c.server.dirty++;
  return r.name;
}

function functionDelete(c: Client, argv: string[]): Reply {
  if (!c.server.functions.delete(argv[2]!)) return errorReply('Library not found');
  c.server.dirty++;
  return OK;
}

function functionFlush(c: Client, argv: string[]): Reply {
  if (argv.length > 3) return subcommandSyntaxError(argv);
  if (argv.length === 3) {
    const mode = opt(argv[2]!);
    if (mode !== 'sync' && mode !== 'async') return errorReply('FUNCTION FLUSH only supports SYNC|ASYNC option');
  }
  c.server.functions.clear();
  c.server.dirty++;
  return OK;
}

function functionList(c: Client, argv: string[]): Reply {
  let withCode = false;
  let pattern: string | null = null;
  for (let i = 2; i < argv.length; i++) {
    const a = opt(argv[i]!);
    if (!withCode && a === 'withcode') {
      withCode = true;
      continue;
    }
    if (pattern === null && a === 'libraryname') {
      if (i >= argv.length - 1) return errorReply('library name argument was not given');
      pattern = argv[++i]!;
      continue;
    }
    return errorReply(`Unknown argument ${cString(argv[i]!)}`);
  }
  const out: Reply[] = [];
  for (const lib of c.server.functions.list()) {
    if (pattern !== null && !globMatch(pattern, lib.name)) continue;
    const fns = lib.functions.map(
      (f) => new MapReply(['name', f.name, 'description', f.description, 'flags', new SetReply(f.flags.map((x) => new StatusReply(x)))]),
    );
    const fields: Reply[] = ['library_name', lib.name, 'engine', lib.engine, 'functions', fns];
    if (withCode) fields.push('library_code', lib.code);
    out.push(new MapReply(fields));
  }
  return out;
}

function functionDump(c: Client): Reply {
  return bytesFromArray(createFunctionsPayload(c.server.functions.codes(), c.server.config.getBool('rdbcompression')));
}

function functionRestore(c: Client, argv: string[]): Reply {
  if (argv.length > 4) return subcommandSyntaxError(argv);
  let policy = 'append';
  if (argv.length === 4) {
    policy = opt(argv[3]!);
    if (policy !== 'append' && policy !== 'replace' && policy !== 'flush') {
      return errorReply('Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.');
    }
  }
  const server = c.server;
  const payload = bytesToArray(argv[2]!);
  if (!verifyDumpPayload(payload, debugSettings(server).skipChecksumValidation)) return errorReply('DUMP payload version or checksum are wrong');
  const codes = readFunctionsPayload(payload);
  if (typeof codes === 'string') return errorReply(codes);
  const restored = new FunctionLibraries();
  for (const code of codes) {
    const r = restored.create(code, false, true);
    if ('error' in r) return errorReply(r.error);
  }
  if (policy === 'flush') server.functions.replaceWith(restored);
  else {
    const err = server.functions.join(restored, policy === 'replace');
    if (err !== null) return errorReply(err);
  }
  server.dirty++;
  return OK;
}

function functionStats(c: Client): Reply {
  const f = c.server.functions;
  return new MapReply([
    'running_script',
    null,
    'engines',
    new MapReply(['LUA', new MapReply(['libraries_count', f.size, 'functions_count', f.functionCount])]),
  ]);
}

function functionKill(): Reply {
  return errorReply('-NOTBUSY No scripts in execution right now.');
}

function functionHelp(_c: Client, argv: string[]): Reply {
  return helpReply(argv[0]!, [
    'LOAD [REPLACE] <FUNCTION CODE>',
    '    Make a library from the code; its first line names the engine and the library.',
    'DELETE <LIBRARY NAME>',
    '    Remove a library.',
    'LIST [LIBRARYNAME PATTERN] [WITHCODE]',
    '    Describe the libraries (name, engine, functions, and the code with WITHCODE),',
    '    all of them or those whose name matches the pattern.',
    'STATS',
    '    The function running now (always none here) and the libraries per engine.',
    'KILL',
    '    Stop the running function.',
    'FLUSH [ASYNC|SYNC]',
    '    Remove every library.',
    'DUMP',
    '    A payload holding every library, for FUNCTION RESTORE.',
    'RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]',
    '    Add the libraries of a payload: FLUSH removes the others first, APPEND (the default)',
    '    fails on a name already taken, REPLACE replaces a library of the same name.',
  ]);
}

/** FCALL and FCALL_RO: the function's checks as fcallCommandGeneric makes them, then the missing engine. */
function fcall(c: Client, argv: string[]): Reply {
  const lib = c.server.functions.libraryOf(argv[1]!);
  if (lib === undefined) return errorReply('Function not found');
  const numkeys = parseInt64(argv[2]!);
  if (numkeys === null) return errorReply('Bad number of keys provided');
  if (numkeys > argv.length - 3) return errorReply("Number of keys can't be greater than number of args");
  if (numkeys < 0) return errorReply("Number of keys can't be negative");
  return errorReply(cannotRunMessage(argv[1]!, lib.name));
}

export const scriptingCommands: Record<string, Handler> = {
  'function|load': functionLoad,
  'function|delete': functionDelete,
  'function|flush': functionFlush,
  'function|list': functionList,
  'function|dump': functionDump,
  'function|restore': functionRestore,
  'function|stats': functionStats,
  'function|kill': functionKill,
  'function|help': functionHelp,
  fcall,
  fcall_ro: fcall,
};
