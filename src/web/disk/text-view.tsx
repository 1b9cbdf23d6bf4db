import { useState } from 'react';
import { visibleControls } from '../terminal/sanitize.js';
import type { OpenedFile } from './opened-file.js';

/** Bytes of text shown per page. */
const TEXT_PAGE_BYTES = 64 * 1024;

/**
 * A text file, a page at a time: UTF-8 decoded, with every control
 * character made visible (caret notation, as cat -v shows it), carriage
 * returns included, so nothing in the file can act on the page.
 */
export function TextView({ file }: { file: OpenedFile }) {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(file.bytes.length / TEXT_PAGE_BYTES));
  const start = page * TEXT_PAGE_BYTES;
  const text = pageText(file.bytes.subarray(start, start + TEXT_PAGE_BYTES), start, file.durableLength);
  return (
    <div className="text-view">
      {pages > 1 ? (
        <div className="pager small">
          <button type="button" onClick={() => setPage(page - 1)} disabled={page === 0} aria-label="Previous page of text">
            ‹
          </button>
          <span>
            page {page + 1} of {pages}
          </span>
          <button type="button" onClick={() => setPage(page + 1)} disabled={page >= pages - 1} aria-label="Next page of text">
            ›
          </button>
        </div>
      ) : null}
      <pre className="text-lines">
        {text.synced}
        {text.unsynced !== '' ? <span className="unsynced">{text.unsynced}</span> : null}
      </pre>
    </div>
  );
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/** A page's text, split where the durable bytes end. */
export function pageText(bytes: Uint8Array, start: number, durableLength: number): { synced: string; unsynced: string } {
  const cut = Math.max(0, Math.min(bytes.length, durableLength - start));
  const show = (b: Uint8Array): string => visibleControls(decoder.decode(b)).replace(/\r/g, '^M');
  return { synced: show(bytes.subarray(0, cut)), unsynced: show(bytes.subarray(cut)) };
}
