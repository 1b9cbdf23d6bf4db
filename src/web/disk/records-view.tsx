import { memo, useCallback, useMemo, useState, type ReactNode } from 'react';
import { HexView, HEX_PAGE_BYTES, type ByteRange } from './hex-view.js';
import type { OpenedFile } from './opened-file.js';
import type { RecordPager } from './record-pager.js';
import type { RecordRow } from './record-rows.js';
import { useScan } from './use-scan.js';

/**
 * A decoded file beside its bytes: the records of one page (one per line,
 * with its byte offset), the summary the background scan fills in above
 * them, and a hex view that follows the record picked. Records past the
 * durable length are marked: a power loss now loses them.
 */
export function RecordsView<R, S>({
  file,
  pager,
  rowOf,
  summary,
  damaged,
  jumpTo,
}: {
  file: OpenedFile;
  pager: RecordPager<R, S>;
  rowOf: (record: R) => RecordRow;
  /** What the scan has found so far; re-rendered as it goes. */
  summary: (scan: { scanned: number; done: boolean }) => ReactNode;
  /** Where decoding stopped, once the scan knows, to mark in the hex view; asked at each render. */
  damaged: () => ByteRange | null;
  /** A record to show, by index (the un-synced tail); changes when asked again. */
  jumpTo: { index: number; seq: number } | null;
}) {
  const scan = useScan(pager);
  const [page, setPage] = useState(0);
  const [selected, setSelected] = useState<ByteRange | null>(null);
  const [hexPage, setHexPage] = useState(0);
  const [jumped, setJumped] = useState(0);

  // A jump asked for: go to its page and pick it, once per request.
  if (jumpTo !== null && jumpTo.seq !== jumped) {
    const target = Math.floor(jumpTo.index / pager.pageSize);
    if (target < pager.knownPages) {
      setJumped(jumpTo.seq);
      setPage(target);
      const rec = pager.page(target)?.[jumpTo.index % pager.pageSize];
      if (rec !== undefined) {
        const r = rowOf(rec);
        setSelected({ start: r.offset, end: r.end });
        setHexPage(Math.floor(r.offset / HEX_PAGE_BYTES));
      }
    }
  }

  const rows = useMemo(() => (pager.page(page) ?? []).map(rowOf), [pager, page, rowOf]);
  // The same range as the same object, so the hex view renders again only when it moves.
  const stop = damaged();
  const damagedStart = stop?.start ?? -1;
  const damagedEnd = stop?.end ?? -1;
  const damagedRange = useMemo(() => (damagedStart < 0 ? null : { start: damagedStart, end: damagedEnd }), [damagedStart, damagedEnd]);
  const total = pager.totalPages;
  const lastKnown = total ?? pager.knownPages;
  const d = file.durableLength;
  const cut = rows.findIndex((r) => r.end > d);
  const showCut = cut >= 0 && (cut > 0 || page === 0 || rows[0]!.offset <= d);

  const pick = useCallback((r: RecordRow): void => {
    setSelected({ start: r.offset, end: r.end });
    setHexPage(Math.floor(r.offset / HEX_PAGE_BYTES));
  }, []);

  return (
    <div className="records-view">
      <div className="records-side">
        <div className="records-summary">{summary(scan)}</div>
        <div className="pager small">
          <button type="button" onClick={() => setPage(0)} disabled={page === 0} aria-label="First page of records">
            «
          </button>
          <button type="button" onClick={() => setPage(page - 1)} disabled={page === 0} aria-label="Previous page of records">
            ‹
          </button>
          <span>
            page {page + 1} of {total ?? `${lastKnown}…`}
          </span>
          <button type="button" onClick={() => setPage(page + 1)} disabled={page + 1 >= lastKnown || rows.length < pager.pageSize} aria-label="Next page of records">
            ›
          </button>
          <button type="button" onClick={() => setPage(lastKnown - 1)} disabled={total === null || page === total - 1} aria-label="Last page of records">
            »
          </button>
        </div>
        <RecordList rows={rows} durableLength={d} cutAt={showCut ? cut : -1} picked={selected?.start ?? null} onPick={pick} />
      </div>
      <HexView bytes={file.bytes} durableLength={d} page={hexPage} onPage={setHexPage} selection={selected} damaged={damagedRange} />
    </div>
  );
}

/**
 * The records of a page. Kept apart from the summary above it, which the
 * background scan re-renders while it reads: a page's rows render only
 * when the page or the pick changes.
 */
const RecordList = memo(function RecordList({
  rows,
  durableLength: d,
  cutAt,
  picked,
  onPick,
}: {
  rows: readonly RecordRow[];
  durableLength: number;
  /** The row before which the durable end falls, or -1. */
  cutAt: number;
  picked: number | null;
  onPick: (r: RecordRow) => void;
}) {
  return (
    <ol className="records" aria-label="Records">
      {rows.length === 0 ? <li className="muted small">No records.</li> : null}
      {rows.map((r, i) => (
        <li key={r.offset} className={`record tone-${r.tone}${r.end > d ? ' unsynced' : ''}`}>
          {i === cutAt ? (
            <div className="durable-cut" role="note">
              {d === 0 ? 'Nothing of this file is on the disk yet: a power loss now loses all of it.' : `The disk holds the file up to byte ${d}: a power loss now loses everything from here on.`}
            </div>
          ) : null}
          <button type="button" className={picked === r.offset ? 'record-button picked' : 'record-button'} onClick={() => onPick(r)} aria-pressed={picked === r.offset}>
            <span className="record-offset" title={`0x${r.offset.toString(16)}, ${r.end - r.offset} bytes`}>
              {r.offset}
            </span>
            <span className={`record-tag tag-${r.tag.replace(/\s.*/, '')}`}>{r.tag}</span>
            <span className="record-text">{r.text}</span>
            {r.detail !== '' ? <span className="record-detail">{r.detail}</span> : null}
          </button>
        </li>
      ))}
    </ol>
  );
});
