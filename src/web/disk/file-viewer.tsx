import { memo, useEffect, useRef, useState } from 'react';
import { useWorkbook } from '../store-context.js';
import { formatElapsed } from '../timeline/clock-format.js';
import { AofView } from './aof-view.js';
import { formatBytes } from './disk-view.js';
import { downloadBytes } from '../download.js';
import { HexView } from './hex-view.js';
import { ManifestView } from './manifest-view.js';
import type { OpenedFile } from './opened-file.js';
import { RdbView } from './rdb-view.js';
import { TextView } from './text-view.js';
import { ViewerBoundary } from './viewer-boundary.js';

const KIND_NAMES = { rdb: 'RDB snapshot', aof: 'append-only file', manifest: 'AOF manifest', text: 'text', binary: 'binary' } as const;

/**
 * A file opened from the disk view, in a modal dialog over the page: what
 * it is, how much of it a power loss now would keep, and its content
 * decoded for its kind beside its bytes. Esc or Close closes it; Download
 * saves the copy; Read again copies the file as it is now.
 */
export function FileViewer({ file, onClose, onReload }: { file: OpenedFile; onClose: () => void; onReload: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const worldStartUs = useWorkbook((s) => s.clock.startUs);

  useEffect(() => {
    const d = ref.current;
    if (d === null) return;
    if (!d.open) d.showModal();
    return () => {
      if (d.open) d.close();
    };
  }, []);

  // A close event comes a task after the close. Under React's StrictMode
  // (the dev server), the effect above is run, cleaned up and run again at
  // once: the cleanup's close reaches us when the dialog is open again, and
  // must not close the viewer.
  const closed = () => {
    if (ref.current?.open !== true) onClose();
  };

  const lost = file.bytes.length - file.durableLength;
  return (
    <dialog ref={ref} className="file-viewer" aria-labelledby="file-viewer-title" onClose={closed}>
      <header className="viewer-header">
        <div className="viewer-title-line">
          <h2 id="file-viewer-title" className="viewer-title">
            <span className="muted">{file.host}:</span>
            {file.shownPath}
          </h2>
          <span className="badge kind">{KIND_NAMES[file.kind]}</span>
        </div>
        <p className="viewer-facts small">
          {formatBytes(file.bytes.length)} ({file.bytes.length} bytes) ·{' '}
          {!file.survivesPowerLoss ? (
            <span className="at-risk">its name is not on the disk yet: a power loss now loses the whole file</span>
          ) : lost === 0 ? (
            <span className="ok">all on the disk</span>
          ) : (
            <span className="at-risk">
              {file.durableLength} bytes on the disk, the last {lost} only in the page cache
            </span>
          )}
          {' · '}
          <span className="muted">as it was at T+{formatElapsed(file.openedAtUs - worldStartUs)}</span>
        </p>
        <div className="viewer-actions">
          <button type="button" onClick={() => downloadBytes(file.name, file.bytes)} aria-label={`Download ${file.shownPath}`}>
            Download
          </button>
          <button type="button" onClick={onReload} aria-label={`Read ${file.shownPath} again as it is now`}>
            Read again
          </button>
          <button type="button" onClick={() => ref.current?.close()} aria-label="Close the file viewer">
            Close
          </button>
        </div>
      </header>
      <div className="viewer-body">
        <ViewerBoundary key={`${file.openedAtUs}:${file.path}`} fallback={<BytesOnly file={file} />}>
          {/* TTLs are read against the moment the bytes were copied. */}
          <Body file={file} nowUs={file.openedAtUs} />
        </ViewerBoundary>
      </div>
    </dialog>
  );
}

function BytesOnly({ file }: { file: OpenedFile }) {
  const [hexPage, setHexPage] = useState(0);
  return <HexView bytes={file.bytes} durableLength={file.durableLength} page={hexPage} onPage={setHexPage} selection={null} damaged={null} />;
}

/** The decoded content; it renders again only for another file, not each time the world moves. */
const Body = memo(function Body({ file, nowUs }: { file: OpenedFile; nowUs: number }) {
  switch (file.kind) {
    case 'rdb':
      return <RdbView file={file} nowUs={nowUs} />;
    case 'aof':
      return <AofView file={file} nowUs={nowUs} />;
    case 'manifest':
      return <ManifestView file={file} />;
    case 'text':
      return <TextView file={file} />;
    case 'binary':
      return <BytesOnly file={file} />;
  }
});
