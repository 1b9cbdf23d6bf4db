import { memo, useState } from 'react';
import { asciiColumn, hexByte, hexLines, hexOffset, HEX_LINE_BYTES } from '../../../emulator/persistence/inspect/index.js';

/** Lines per page of the hex view: 2 KiB, a page the browser lays out in a few milliseconds. */
export const HEX_PAGE_LINES = 128;
export const HEX_PAGE_BYTES = HEX_PAGE_LINES * HEX_LINE_BYTES;

export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/**
 * The bytes as `hexdump -C` shows them, a page at a time, with bytes past
 * the durable length marked (a power loss now loses them), the selected
 * record's bytes highlighted, and the bytes where decoding stopped marked
 * as damaged. The ASCII column shows only printable ASCII; every other
 * byte is a dot, as in hexdump.
 */
export const HexView = memo(function HexView({
  bytes,
  durableLength,
  page,
  onPage,
  selection,
  damaged,
}: {
  bytes: Uint8Array;
  durableLength: number;
  page: number;
  onPage: (page: number) => void;
  selection: ByteRange | null;
  damaged: ByteRange | null;
}) {
  const pages = Math.max(1, Math.ceil(bytes.length / HEX_PAGE_BYTES));
  const start = page * HEX_PAGE_BYTES;
  const lines = hexLines(bytes, start, start + HEX_PAGE_BYTES);
  const [jump, setJump] = useState('');

  const classOf = (at: number): string => {
    let c = at >= durableLength ? 'unsynced' : '';
    if (selection !== null && at >= selection.start && at < selection.end) c += ' sel';
    if (damaged !== null && at >= damaged.start && at < Math.max(damaged.end, damaged.start + 1)) c += ' damaged';
    return c;
  };

  const go = (e: React.FormEvent): void => {
    e.preventDefault();
    const text = jump.trim().toLowerCase();
    const at = text.startsWith('0x') ? parseInt(text.slice(2), 16) : parseInt(text, 10);
    if (Number.isFinite(at) && at >= 0) onPage(Math.min(pages - 1, Math.floor(at / HEX_PAGE_BYTES)));
  };

  return (
    <div className="hex-view">
      <div className="pager small">
        <button type="button" onClick={() => onPage(page - 1)} disabled={page === 0} aria-label="Previous 2 KB of the hex view">
          ‹
        </button>
        <span>
          bytes {start}–{Math.min(bytes.length, start + HEX_PAGE_BYTES)} of {bytes.length}
        </span>
        <button type="button" onClick={() => onPage(page + 1)} disabled={page >= pages - 1} aria-label="Next 2 KB of the hex view">
          ›
        </button>
        <form className="jump" onSubmit={go}>
          <input value={jump} onChange={(e) => setJump(e.target.value)} placeholder="offset" aria-label="Go to byte offset (decimal, or hex with 0x)" spellCheck={false} />
        </form>
      </div>
      {bytes.length === 0 ? <p className="muted small">The file is empty.</p> : null}
      <pre className="hex-lines" aria-label="Hex dump">
        {lines.map((line) => (
          <HexLineView key={line.offset} offset={line.offset} bytes={line.bytes} classOf={classOf} />
        ))}
      </pre>
    </div>
  );
});

/** One line, its bytes grouped into runs that share a mark so a page stays a few thousand nodes. */
const HexLineView = memo(function HexLineView({ offset, bytes, classOf }: { offset: number; bytes: Uint8Array; classOf: (at: number) => string }) {
  const hexRuns: Array<{ cls: string; text: string }> = [];
  const asciiRuns: Array<{ cls: string; text: string }> = [];
  for (let i = 0; i < HEX_LINE_BYTES; i++) {
    const cls = i < bytes.length ? classOf(offset + i) : '';
    const hex = (i === 8 ? '  ' : ' ') + (i < bytes.length ? hexByte(bytes[i]!) : '  ');
    push(hexRuns, cls, hex);
    if (i < bytes.length) push(asciiRuns, cls, asciiColumn(bytes.subarray(i, i + 1)));
  }
  return (
    <div className="hex-line">
      <span className="hex-offset">{hexOffset(offset)}</span> {hexRuns.map((r, i) => (r.cls === '' ? r.text : <span key={i} className={r.cls}>{r.text}</span>))}
      {'  |'}
      {asciiRuns.map((r, i) => (r.cls === '' ? r.text : <span key={i} className={r.cls}>{r.text}</span>))}
      {'|'}
    </div>
  );
});

function push(runs: Array<{ cls: string; text: string }>, cls: string, text: string): void {
  const last = runs[runs.length - 1];
  if (last !== undefined && last.cls === cls) last.text += text;
  else runs.push({ cls, text });
}
