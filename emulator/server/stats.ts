/**
 * The counters behind INFO stats, INFO errorstats and the persistence
 * section. CONFIG RESETSTAT zeroes the ones Redis's resetServerStats zeroes;
 * state that describes the server rather than counts events (the last save
 * time, whether a rewrite is running) survives it.
 */
export class ServerStats {
  totalConnectionsReceived = 0;
  totalCommandsProcessed = 0;
  keyspaceHits = 0;
  keyspaceMisses = 0;
  expiredKeys = 0;
  /** Running estimate of the share of expired keys among those with a TTL (0..1). */
  expiredStalePerc = 0;
  expiredTimeCapReachedCount = 0;
  expireCycleCpuMs = 0;
  evictedKeys = 0;
  evictedClients = 0;
  totalEvictionExceededTimeMs = 0;
  rejectedConnections = 0;
  syncFull = 0;
  syncPartialOk = 0;
  syncPartialErr = 0;
  totalErrorReplies = 0;
  totalReadsProcessed = 0;
  totalWritesProcessed = 0;
  /** Bytes read from and written to clients (replication links have their own counters). */
  netInputBytes = 0;
  netOutputBytes = 0;
  netReplInputBytes = 0;
  netReplOutputBytes = 0;
  unexpectedErrorReplies = 0;
  dumpPayloadSanitizations = 0;
  latestForkUsec = 0;
  totalForks = 0;
  /** Error replies by code (errorstat_ERR:count=...). */
  errors = new Map<string, number>();
  /** Peak of INFO memory's used_memory, raised whenever INFO computes it. */
  peakMemoryBytes = 0;
  readonly persistence = new PersistenceStats();
  /** The last sample of the command counter, for instantaneous_ops_per_sec. */
  opsSample = { atMs: -1, commands: 0, perSec: 0 };

  countError(code: string): void {
    this.totalErrorReplies++;
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
  }

  /** CONFIG RESETSTAT: the counters of src/server.c resetServerStats and the error table. */
  reset(): void {
    this.totalConnectionsReceived = 0;
    this.totalCommandsProcessed = 0;
    this.keyspaceHits = 0;
    this.keyspaceMisses = 0;
    this.expiredKeys = 0;
    this.expiredStalePerc = 0;
    this.expiredTimeCapReachedCount = 0;
    this.expireCycleCpuMs = 0;
    this.evictedKeys = 0;
    this.evictedClients = 0;
    this.totalEvictionExceededTimeMs = 0;
    this.rejectedConnections = 0;
    this.syncFull = 0;
    this.syncPartialOk = 0;
    this.syncPartialErr = 0;
    this.totalErrorReplies = 0;
    this.totalReadsProcessed = 0;
    this.totalWritesProcessed = 0;
    this.netInputBytes = 0;
    this.netOutputBytes = 0;
    this.netReplInputBytes = 0;
    this.netReplOutputBytes = 0;
    this.unexpectedErrorReplies = 0;
    this.dumpPayloadSanitizations = 0;
    this.latestForkUsec = 0;
    this.totalForks = 0;
    this.errors = new Map();
    this.opsSample = { atMs: -1, commands: 0, perSec: 0 };
    const p = this.persistence;
    p.rdbSaves = 0;
    p.aofRewrites = 0;
    p.aofRewritesConsecutiveFailures = 0;
    p.aofDelayedFsync = 0;
  }

  /**
   * instantaneous_ops_per_sec: commands per second since the previous
   * sample, taken at most every 100 ms (Redis samples in serverCron).
   */
  opsPerSec(nowMs: number): number {
    const s = this.opsSample;
    if (s.atMs < 0) {
      this.opsSample = { atMs: nowMs, commands: this.totalCommandsProcessed, perSec: 0 };
    } else if (nowMs - s.atMs >= 100) {
      const perSec = Math.floor(((this.totalCommandsProcessed - s.commands) * 1000) / (nowMs - s.atMs));
      this.opsSample = { atMs: nowMs, commands: this.totalCommandsProcessed, perSec };
    }
    return this.opsSample.perSec;
  }
}

/**
 * What INFO persistence and LASTSAVE report. The persistence engine updates
 * it; a server that has never saved keeps these values.
 */
export class PersistenceStats {
  /** Unix seconds of the last successful save; null means "since start" (server.lastsave). */
  lastSaveUnixS: number | null = null;
  rdbSaves = 0;
  rdbBgsaveInProgress = false;
  rdbLastBgsaveOk = true;
  rdbLastBgsaveTimeS = -1;
  /** Unix seconds when the running BGSAVE started, or -1. */
  rdbBgsaveStartUnixS = -1;
  rdbLastCowSize = 0;
  /** While a child runs: its copy-on-write cost, peak, progress (INFO current_*). */
  currentCowSize = 0;
  currentCowPeak = 0;
  /** When current_cow_size last changed (virtual us), for current_cow_size_age. */
  currentCowSizeSinceUs = 0;
  currentForkPerc = 0;
  currentSaveKeysProcessed = 0;
  currentSaveKeysTotal = 0;
  rdbLastLoadKeysExpired = 0;
  rdbLastLoadKeysLoaded = 0;
  loading = false;
  /**
   * The load is a replica's diskless swapdb sync from the same history
   * (async_loading): the old data keeps serving reads meanwhile, and only
   * the commands flagged no-async-loading get -LOADING.
   */
  asyncLoading = false;
  aofRewriteInProgress = false;
  aofRewriteScheduled = false;
  aofLastRewriteTimeS = -1;
  aofRewriteStartUnixS = -1;
  aofLastBgrewriteOk = true;
  aofRewrites = 0;
  aofRewritesConsecutiveFailures = 0;
  aofLastWriteOk = true;
  aofLastCowSize = 0;
  /** Shown when appendonly is on. */
  aofCurrentSize = 0;
  aofBaseSize = 0;
  aofBufferLength = 0;
  aofPendingBioFsync = 0;
  aofDelayedFsync = 0;
  /**
   * While the AOF is on: the strerror of the write or background fsync that
   * failed and has not succeeded since, which stops writes; null otherwise.
   */
  aofWriteError: string | null = null;

  /**
   * writeCommandsDeniedByDiskError for RDB: the last BGSAVE failed, save
   * rules are set, and stop-writes-on-bgsave-error is on.
   */
  writesDeniedByDiskError(server: { config: { getBool(name: string): boolean; get(name: string): string } }): boolean {
    if (this.rdbLastBgsaveOk) return false;
    return server.config.getBool('stop-writes-on-bgsave-error') && server.config.get('save').trim() !== '';
  }

  /**
   * The MISCONF error a write (or PING) gets now, or null: RDB's first, then
   * the AOF's (writeCommandsGetDiskErrorMessage).
   */
  diskErrorReply(server: { config: { getBool(name: string): boolean; get(name: string): string } }): string | null {
    if (this.writesDeniedByDiskError(server)) return MISCONF_RDB;
    if (this.aofWriteError !== null) return `-MISCONF Errors writing to the AOF file: ${this.aofWriteError}`;
    return null;
  }
}

/** shared.bgsaveerr (src/server.c). */
const MISCONF_RDB =
  "-MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.";
