import type { CommandDef } from '../server/command-table.js';
import { asciiLower } from '../resp/bytes.js';
import type { Client } from '../server/client.js';
import type { RedisServer } from '../server/server.js';
import { loadAofFiles, type AofFilesStatus } from './aof/loader.js';
import type { AofManifest } from './aof/manifest.js';
import type { AofOpenFailure, AofReplayTarget } from './aof/reader.js';
import { errorText, type AofDir, type AofProcess } from './aof-dir.js';
import { RdbError } from './rdb/errors.js';
import { readRdb } from './rdb/file-reader.js';
import { doneLoadingRdb, keySaveDelayUs, placeLoadedFunctions, placeLoadedKeys, rdbLoadOptions } from './rdb-dataset.js';

/**
 * Loading a multi-part AOF into the server at startup (loadAppendOnlyFiles
 * and loadSingleAppendOnlyFile in src/aof.c). Each non-empty file is
 * replayed by a fake client of its own, as Redis's AOF client: commands go
 * straight to their handlers, past the checks processCommand makes (auth,
 * memory, arity), are not counted in the command statistics, and are not
 * propagated; a transaction runs through EXEC as a client's would.
 */

/** Reference microseconds to load a kilobyte of RDB (as snapshots.ts). */
const RDB_LOAD_US_PER_KB = 6;
/** Reference microseconds to parse and run one command read back from the file. */
const REPLAY_US_PER_COMMAND = 1.5;
/** Reference microseconds per kilobyte of commands read. */
const REPLAY_US_PER_KB = 0.25;

export interface AofLoadOutcome {
  status: AofFilesStatus;
  /** Virtual time the loading takes on this host. */
  us: number;
  totalBytes: number;
  baseBytes: number;
  /** The log line the server exits with when loading failed. */
  error?: string;
}

/** What one file's loading cost. */
interface FileWork {
  bytes: number;
  rdbBytes: number;
  /** Keys read from an RDB preamble. */
  rdbKeys: number;
  commands: number;
}

/**
 * Loads the files `manifest` names. `locate(name)` is where a file is on the
 * disk (the AOF directory, or `dir` for an old single-file AOF being
 * upgraded). The loader's log lines are printed as they come.
 */
export function loadAofAtStart(p: AofProcess, files: AofDir, manifest: AofManifest, locate: (name: string) => string): AofLoadOutcome {
  const server = p.server;
  const disk = files.disk;
  const cpuSpeed = p.host.profile.cpuSpeed;
  const work = new Map<string, FileWork>();
  const clients: Client[] = [];
  let rdbError: RdbError | null = null;
  /** What the RDB loader logs while it reads a base file, printed after the AOF loader's "Reading RDB base file" line. */
  const rdbLines: string[] = [];

  const costUs = (w: FileWork): number =>
    ((w.rdbBytes / 1024) * RDB_LOAD_US_PER_KB + ((w.bytes - w.rdbBytes) / 1024) * REPLAY_US_PER_KB + w.commands * REPLAY_US_PER_COMMAND) / cpuSpeed;

  const open = (name: string): Uint8Array | AofOpenFailure => {
    try {
      return disk.readFile(locate(name));
    } catch (e) {
      const text = errorText(e);
      return { missing: text === 'No such file or directory', error: text };
    }
  };

  const targetFor = (name: string): AofReplayTarget => {
    const path = locate(name);
    const w: FileWork = { bytes: files.size(path) ?? 0, rdbBytes: 0, rdbKeys: 0, commands: 0 };
    work.set(name, w);
    // createAOFClient: only a file with something in it gets one, and it takes a client id.
    let c: Client | null = null;
    if (w.bytes > 0) {
      c = server.connect();
      server.stats.totalConnectionsReceived--;
      clients.push(c);
    }
    const client = (): Client => c!;
    return {
      knows: (argv) => lookupForReplay(server, argv) !== null,
      run: (argv) => {
        w.commands++;
        runDirect(client(), lookupForReplay(server, argv)!, argv);
      },
      runTransaction: (queued) => {
        w.commands += queued.length + 2;
        const fake = client();
        runDirect(fake, server.commands.get('multi')!, ['MULTI']);
        for (const argv of queued) fake.queue.push({ cmd: lookupForReplay(server, argv)!, argv });
        runDirect(fake, server.commands.get('exec')!, ['EXEC']);
      },
      loadRdb: (bytes) => {
        const contents = readRdb(
          bytes,
          rdbLoadOptions(server, {
            nowMs: Math.floor(p.nowUs() / 1000),
            // A preamble keeps keys that have expired: the commands after it may still touch them.
            dropExpired: false,
            log: (line) => rdbLines.push(line),
          }),
        );
        if (contents instanceof RdbError) {
          rdbError = contents;
          return { ok: false, atEof: false };
        }
        const failed = placeLoadedFunctions(server, contents, false);
        if (failed !== null) {
          rdbError = new RdbError('function', failed);
          return { ok: false, atEof: false };
        }
        placeLoadedKeys(server, contents, false);
        rdbLines.push(doneLoadingRdb(server, contents));
        w.rdbBytes = contents.length;
        w.rdbKeys = contents.keysLoaded + contents.keysExpired;
        return { ok: true, length: contents.length };
      },
      truncate: (length) => {
        try {
          disk.truncate(path, length);
          return null;
        } catch (e) {
          return errorText(e);
        }
      },
    };
  };

  server.updateTime();
  server.loadingData = true;
  let r: ReturnType<typeof loadAofFiles>;
  try {
    r = loadAofFiles(
    manifest,
    open,
    {
      loadTruncated: server.config.getBool('aof-load-truncated'),
      oldStyleName: files.appendFilename,
      secondsSpent: (name) => {
        const w = work.get(name);
        return w === undefined ? 0 : costUs(w) / 1e6;
      },
    },
    targetFor,
  );
  } finally {
    server.loadingData = false;
  }
  for (const c of clients) server.disconnect(c);

  // key-load-delay sleeps after each command replayed and each key of a preamble (loadSingleAppendOnlyFile, rdbLoadRio).
  const delay = server.config.getNumber('key-load-delay');
  let us = 0;
  for (const w of work.values()) us += costUs(w) + keySaveDelayUs(w.commands + w.rdbKeys, delay);
  us = us > 0 ? Math.max(1, Math.round(us)) : 0;
  const out: AofLoadOutcome = { status: r.status, us, totalBytes: r.totalBytes, baseBytes: r.baseBytes };
  const failed = r.status === 'failed' || r.status === 'open-error';
  const lines = r.log.map((e) => e.text);
  const readingRdb = lines.findIndex((l) => l.startsWith('Reading RDB'));
  if (readingRdb >= 0) lines.splice(readingRdb + 1, 0, ...rdbLines);
  if (rdbError !== null) {
    // A real 7.0.15 stops inside its RDB loader on a damaged base: nothing the AOF loader would add after it is printed.
    for (const l of lines.slice(0, readingRdb + 1 + rdbLines.length)) p.log(l);
    out.error = (rdbError as RdbError).message;
    return out;
  }
  if (!failed) {
    for (const l of lines) p.log(l);
    return out;
  }
  for (const l of lines.slice(0, -1)) p.log(l);
  out.error = lines[lines.length - 1] ?? 'Fatal error loading the AOF.';
  return out;
}

/**
 * lookupCommand as the AOF loader uses it: the command, or its subcommand
 * when it has them and an argument follows; null when unknown.
 */
function lookupForReplay(server: RedisServer, argv: string[]): CommandDef | null {
  const cmd = server.commands.get(argv[0]!);
  if (cmd === undefined) return null;
  if (cmd.subcommands === null || argv.length === 1) return cmd.handler === null ? null : cmd;
  const sub = cmd.subcommands.get(asciiLower(argv[1]!));
  return sub === undefined || sub.handler === null ? null : sub;
}

/** cmd->proc(fakeClient): the handler alone, its reply dropped. */
function runDirect(c: Client, cmd: CommandDef, argv: string[]): void {
  const outer = c.cmd;
  c.cmd = cmd;
  try {
    cmd.handler!(c, argv);
  } finally {
    c.cmd = outer;
    c.propagateArgv = null;
    c.forcePropagation = 0;
  }
}
