import { useCallback, useMemo } from 'react';
import { RdbRecordReader, type RdbReaderState, type RdbRecord } from '../../../emulator/persistence/inspect/index.js';
import { formatBytes, formatCount } from './disk-view.js';
import type { ByteRange } from './hex-view.js';
import { RdbSummary } from './file-summaries.js';
import type { OpenedFile } from './opened-file.js';
import { RecordPager } from './record-pager.js';
import { rdbRow } from './record-rows.js';
import { RecordsView } from './records-view.js';

/** Records per page of an RDB. */
const RDB_PAGE = 100;

/** An RDB file decoded: header, aux fields, databases and keys (type, encoding, TTL, value), the end and its checksum. */
export function RdbView({ file, nowUs }: { file: OpenedFile; nowUs: number }) {
  const { pager, summary } = useMemo(() => {
    const summary = new RdbSummary();
    const pager = new RecordPager<RdbRecord, RdbReaderState>((from) => new RdbRecordReader(file.bytes, from), RDB_PAGE, (r) => summary.add(r));
    return { pager, summary };
  }, [file]);
  const rowOf = useCallback((r: RdbRecord) => rdbRow(r, nowUs / 1000), [nowUs]);
  return (
    <RecordsView
      file={file}
      pager={pager}
      rowOf={rowOf}
      damaged={() => stopRange(summary.end)}
      jumpTo={null}
      summary={(scan) => <RdbFacts summary={summary} size={file.bytes.length} done={scan.done} />}
    />
  );
}

/** The record decoding stopped in, through the byte it stopped at. */
export function stopRange(end: RdbSummary['end']): ByteRange | null {
  if (end === null || end.kind !== 'error') return null;
  return { start: end.offset, end: Math.max(end.end, end.error.offset + 1) };
}

export function RdbFacts({ summary: s, size, done }: { summary: RdbSummary; size: number; done: boolean }) {
  const dbs = [...s.dbs].sort((a, b) => a[0] - b[0]);
  const types = [...s.types].sort((a, b) => b[1] - a[1]);
  return (
    <dl className="facts">
      <dt>Format</dt>
      <dd>{s.version > 0 ? `RDB version ${s.version}` : done ? 'not an RDB file' : 'reading…'}</dd>
      <dt>Keys</dt>
      <dd>
        {formatCount(s.keys)} key{s.keys === 1 ? '' : 's'}
        {dbs.length > 0 ? ` in ${dbs.map(([db, c]) => `db${db}: ${formatCount(c.keys)}${c.expires > 0 ? ` (${formatCount(c.expires)} with TTL)` : ''}`).join(', ')}` : ''}
        {types.length > 0 ? <span className="muted"> · {types.map(([t, n]) => `${t} ${formatCount(n)}`).join(', ')}</span> : null}
        {s.functions > 0 ? ` · ${s.functions} function libraries` : ''}
      </dd>
      <dt>End</dt>
      <dd>
        {!done ? (
          <span className="muted">
            reading… {Math.floor((s.bytesRead / Math.max(1, size)) * 100)}% of {formatBytes(size)}
          </span>
        ) : s.end === null ? (
          <span className="bad">no end marker</span>
        ) : s.end.kind === 'eof' ? (
          <span className="ok">
            complete: {s.end.checksum.stored === null ? 'no checksum in this version' : s.end.checksum.disabled ? 'saved without a checksum' : 'the checksum matches'}
            {s.end.trailing > 0 ? `; ${formatBytes(s.end.trailing)} follow the end` : ''}
          </span>
        ) : (
          <span className="bad">
            decoding stopped at byte {s.end.error.offset >= 0 ? s.end.error.offset : s.end.offset}: {s.end.error.message.trim()}
            {s.end.error.detail !== '' ? ` (${s.end.error.detail})` : ''}
          </span>
        )}
      </dd>
    </dl>
  );
}
