/** The counters behind INFO stats and INFO errorstats. CONFIG RESETSTAT zeroes them. */
export class ServerStats {
  totalConnectionsReceived = 0;
  totalCommandsProcessed = 0;
  keyspaceHits = 0;
  keyspaceMisses = 0;
  expiredKeys = 0;
  expiredStalePerc = 0;
  expiredTimeCapReachedCount = 0;
  expireCycleCpuMs = 0;
  evictedKeys = 0;
  rejectedConnections = 0;
  totalErrorReplies = 0;
  totalReadsProcessed = 0;
  totalWritesProcessed = 0;
  netInputBytes = 0;
  netOutputBytes = 0;
  unexpectedErrorReplies = 0;
  dumpPayloadSanitizations = 0;
  /** Error replies by code (errorstat_ERR:count=...). */
  errors = new Map<string, number>();

  countError(code: string): void {
    this.totalErrorReplies++;
    this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
  }

  reset(): void {
    const fresh = new ServerStats();
    Object.assign(this, fresh);
  }
}
