import { startTransition, useRef, useState } from 'react';
import type { HostView } from '../cluster/cluster-view.js';
import { useStore } from '../store-context.js';
import './disk.css';
import { formatBytes, type FileView } from './disk-view.js';
import { downloadBytes } from '../download.js';
import { FileViewer } from './file-viewer.js';
import { openFile, type OpenedFile } from './opened-file.js';
import { UploadForm } from './upload-form.js';

/**
 * The disk view: each host's files with their size, and a bar of what is
 * on the disk, what only the page cache holds (a power loss now loses it)
 * and what a process still buffers (its death loses it). A file opens in a
 * viewer over the page; any file can be downloaded; files from the
 * learner's machine can be uploaded into a host.
 */
export function DiskPanel({ hosts }: { hosts: readonly HostView[] }) {
  const store = useStore();
  const [opened, setOpened] = useState<OpenedFile | null>(null);
  const [error, setError] = useState<string | null>(null);
  const opener = useRef<HTMLElement | null>(null);

  const copy = (host: string, path: string): OpenedFile | null => {
    try {
      setError(null);
      return openFile(store.world, host, path);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      return null;
    }
  };

  /**
   * Copying a large file takes a task of its own; the viewer then renders
   * as a transition, in slices, so no single task holds the page long.
   */
  const load = (host: string, path: string): void => {
    setTimeout(() => {
      const c = copy(host, path);
      if (c !== null) startTransition(() => setOpened(c));
    }, 0);
  };

  const open = (host: string, path: string): void => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    load(host, path);
  };

  const close = (): void => {
    setOpened(null);
    opener.current?.focus();
  };

  return (
    <>
      <p className="disk-legend small">
        <span className="legend-item">
          <span className="swatch durable" aria-hidden="true" /> on the disk
        </span>
        <span className="legend-item">
          <span className="swatch cached" aria-hidden="true" /> only in the page cache: a power loss loses it
        </span>
        <span className="legend-item">
          <span className="swatch buffered" aria-hidden="true" /> in a process's buffer: lost if it dies
        </span>
      </p>
      {error !== null ? (
        <p className="bad small" role="alert">
          {error}
        </p>
      ) : null}
      {hosts.map((h) => (
        <article key={h.name} className={h.powered ? 'host disk-host' : 'host disk-host powered-off'} aria-label={`Files of ${h.name}`}>
          <header className="host-header">
            <span className="host-name">{h.name}</span>
            <span className="host-meta">
              {h.disk.kind} · {formatBytes(h.disk.usedBytes)} used
            </span>
            {h.disk.full ? <span className="badge off">disk full</span> : null}
            {!h.powered ? <span className="badge off">power off</span> : null}
          </header>
          {h.files.files.length === 0 ? <p className="muted small">No files.</p> : null}
          {byDirectory(h.files.files).map(([dir, files]) => (
            <section key={dir} className="directory" aria-label={`Directory ${dir}`}>
              <h3 className="directory-name">{dir}</h3>
              <ul className="files">
                {files.map((f) => (
                  <FileRow
                    key={f.path}
                    host={h.name}
                    file={f}
                    onOpen={() => open(h.name, f.path)}
                    onDownload={() => {
                      const c = copy(h.name, f.path);
                      if (c !== null) downloadBytes(c.name, c.bytes);
                    }}
                  />
                ))}
              </ul>
            </section>
          ))}
          {h.files.truncated ? <p className="muted small">More files than can be listed here: see them with ls in a shell.</p> : null}
          <UploadForm host={h.name} powered={h.powered} />
        </article>
      ))}
      {opened !== null ? <FileViewer file={opened} onClose={close} onReload={() => load(opened.host, opened.path)} /> : null}
    </>
  );
}

/** Files grouped under their directory (shown paths), in the order the walk found them. */
function byDirectory(files: readonly FileView[]): Array<[string, FileView[]]> {
  const groups: Array<[string, FileView[]]> = [];
  for (const f of files) {
    const dir = f.shownPath.slice(0, Math.max(1, f.shownPath.lastIndexOf('/')));
    const last = groups[groups.length - 1];
    if (last !== undefined && last[0] === dir) last[1].push(f);
    else groups.push([dir, [f]]);
  }
  return groups;
}

function FileRow({ host, file: f, onOpen, onDownload }: { host: string; file: FileView; onOpen: () => void; onDownload: () => void }) {
  const cut = f.shownPath.lastIndexOf('/');
  const lost = f.cachedBytes + f.bufferedBytes;
  const total = f.size + f.bufferedBytes;
  const pct = (n: number): string => `${total === 0 ? 0 : (n / total) * 100}%`;
  const fate = !f.survivesPowerLoss
    ? 'not on the disk yet: a power loss now loses the whole file'
    : lost === 0
      ? 'all on the disk'
      : `a power loss now loses ${formatBytes(lost)}`;
  return (
    <li className="file">
      <div className="file-line">
        <button type="button" className="file-open" onClick={onOpen} aria-label={`Open ${f.shownPath} on ${host}`} title={f.shownPath}>
          {f.shownPath.slice(cut + 1)}
        </button>
        <span className="file-size">{formatBytes(f.size)}</span>
        <button type="button" className="icon-button file-download" onClick={onDownload} aria-label={`Download ${f.shownPath} from ${host}`} title="Download">
          <span aria-hidden="true">⤓</span>
        </button>
      </div>
      <div
        className="file-bar"
        role="img"
        aria-label={`${f.durableBytes} bytes on the disk, ${f.cachedBytes} only in the page cache, ${f.bufferedBytes} in a process's buffer`}
      >
        <span className="seg durable" style={{ width: pct(f.durableBytes) }} />
        <span className="seg cached" style={{ width: pct(f.cachedBytes) }} />
        <span className="seg buffered" style={{ width: pct(f.bufferedBytes) }} />
      </div>
      <div className={lost === 0 && f.survivesPowerLoss ? 'file-fate muted' : 'file-fate at-risk'}>{fate}</div>
    </li>
  );
}
