import { useCallback, useMemo, useState } from 'react';
import { AofEntryReader, type AofEntry, type AofReaderState } from '../../../emulator/persistence/inspect/index.js';
import { formatBytes, formatCount } from './disk-view.js';
import type { ByteRange } from './hex-view.js';
import { AofSummary } from './file-summaries.js';
import type { OpenedFile } from './opened-file.js';
import { RecordPager } from './record-pager.js';
import { aofRow } from './record-rows.js';
import { RdbFacts, stopRange } from './rdb-view.js';
import { RecordsView } from './records-view.js';

/** Entries per page of an AOF. */
const AOF_PAGE = 100;

/**
 * An AOF file as readable commands, one per line with its byte offset: an
 * RDB preamble's records first when it has one, the un-synced tail marked,
 * a torn last command or bytes that are not commands shown for what they
 * are.
 */
export function AofView({ file, nowUs }: { file: OpenedFile; nowUs: number }) {
  const { pager, summary } = useMemo(() => {
    const summary = new AofSummary(file.durableLength);
    const pager = new RecordPager<AofEntry, AofReaderState>((from) => new AofEntryReader(file.bytes, from), AOF_PAGE, (e, i) => summary.add(e, i));
    return { pager, summary };
  }, [file]);
  const rowOf = useCallback((e: AofEntry) => aofRow(e, file.bytes, nowUs / 1000), [file, nowUs]);
  const [jump, setJump] = useState<{ index: number; seq: number } | null>(null);
  return (
    <RecordsView
      file={file}
      pager={pager}
      rowOf={rowOf}
      damaged={() => aofStopRange(summary)}
      jumpTo={jump}
      summary={(scan) => <AofFacts file={file} summary={summary} done={scan.done} onJump={(index) => setJump({ index, seq: (jump?.seq ?? 0) + 1 })} />}
    />
  );
}

/** Where an AOF stops being readable: a torn command, bytes that are not one, or the damage in its preamble. */
function aofStopRange(summary: AofSummary): ByteRange | null {
  const end = summary.end;
  if (end === null) return null;
  if (end.kind === 'bad-preamble') return stopRange(end.record.kind === 'error' ? end.record : null);
  return { start: end.offset, end: end.end };
}

/** What the scan has found so far; read from the summary at each render, as the scan fills it in. */
function AofFacts({ file, summary, done, onJump }: { file: OpenedFile; summary: AofSummary; done: boolean; onJump: (index: number) => void }) {
  const end = summary.end;
  return (
    <>
      <dl className="facts">
        <dt>Commands</dt>
        <dd>
          {formatCount(summary.commands)}
          {summary.commands > 0 ? <span className="muted"> · {summary.topCommands(5).map(([n, c]) => `${n} ${formatCount(c)}`).join(', ')}</span> : null}
          {summary.annotations > 0 ? <span className="muted"> · {summary.annotations} timestamp annotations</span> : null}
        </dd>
        <dt>End</dt>
        <dd>
          {!done ? (
            <span className="muted">
              reading… {Math.floor((summary.bytesRead / Math.max(1, file.bytes.length)) * 100)}% of {formatBytes(file.bytes.length)}
            </span>
          ) : end === null ? (
            <span className="ok">ends cleanly after a whole command</span>
          ) : end.kind === 'torn' ? (
            <span className="bad">ends with a torn command at byte {end.offset}: Redis truncates it at start (aof-load-truncated yes)</span>
          ) : end.kind === 'bad-format' ? (
            <span className="bad">bytes at {end.offset} are not a command: Redis refuses to load the file</span>
          ) : (
            <span className="bad">its RDB preamble is damaged at byte {end.offset}</span>
          )}
        </dd>
        <dt>On disk</dt>
        <dd>
          {file.durableLength >= file.bytes.length ? (
            <span className="ok">all {formatBytes(file.bytes.length)} synced</span>
          ) : (
            <span className="at-risk">
              {formatBytes(file.bytes.length - file.durableLength)} only in the page cache
              {summary.firstUnsynced !== null ? ` (from entry ${summary.firstUnsynced.index + 1})` : ''}: a power loss now loses {file.durableLength === 0 ? 'all of it' : 'them'}{' '}
              {summary.firstUnsynced !== null ? (
                <button type="button" className="link-button" onClick={() => onJump(summary.firstUnsynced!.index)}>
                  show the un-synced tail
                </button>
              ) : null}
            </span>
          )}
          {file.bufferedBytes > 0 ? <span className="at-risk"> · {formatBytes(file.bufferedBytes)} more still in redis-server's buffer</span> : null}
        </dd>
      </dl>
      {summary.hasPreamble ? (
        <details className="preamble">
          <summary>RDB preamble</summary>
          <RdbFacts summary={summary.preamble} size={file.bytes.length} done={summary.preamble.end !== null || done} />
        </details>
      ) : null}
    </>
  );
}
