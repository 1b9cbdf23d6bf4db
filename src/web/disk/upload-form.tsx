import { useId, useState } from 'react';
import { useStore } from '../store-context.js';
import { formatBytes } from './disk-view.js';
import { planUpload, uploadFiles, type UploadSource } from './upload.js';

/**
 * Upload into a host: files (a real dump.rdb) or a whole folder (an
 * appendonlydir), into a directory of the host. The files go into the
 * world as recorded actions, piece by piece (upload.ts).
 */
export function UploadForm({ host, powered }: { host: string; powered: boolean }) {
  const store = useStore();
  const id = useId();
  const [dir, setDir] = useState('/var/lib/redis');
  const [status, setStatus] = useState<{ text: string; bad: boolean } | null>(null);
  const [busy, setBusy] = useState(false);

  const upload = async (list: FileList | null, input: HTMLInputElement): Promise<void> => {
    if (list === null || list.length === 0) return;
    setBusy(true);
    try {
      const sources: UploadSource[] = [];
      for (const file of Array.from(list)) {
        const relativePath = file.webkitRelativePath !== '' ? file.webkitRelativePath : file.name;
        sources.push({ relativePath, bytes: new Uint8Array(await file.arrayBuffer()) });
      }
      const plan = planUpload(dir.trim(), sources);
      if ('error' in plan) {
        setStatus({ text: plan.error, bad: true });
        return;
      }
      const out = await uploadFiles(store, host, plan.files, {
        onProgress: (done, total) => setStatus({ text: `uploading: ${formatBytes(done)} of ${formatBytes(total)}`, bad: false }),
      });
      setStatus(out.ok ? { text: `uploaded ${out.files} file${out.files === 1 ? '' : 's'} (${formatBytes(out.bytes)}) into ${dir.trim()}`, bad: false } : { text: out.message, bad: true });
    } finally {
      setBusy(false);
      // The same file can be chosen again.
      input.value = '';
    }
  };

  return (
    <details className="upload">
      <summary>Upload into {host}</summary>
      <div className="upload-form">
        <label htmlFor={`${id}-dir`}>Directory</label>
        <input id={`${id}-dir`} className="upload-dir" value={dir} onChange={(e) => setDir(e.target.value)} spellCheck={false} />
        <div className="upload-picks">
          <label className={busy || !powered ? 'file-pick disabled' : 'file-pick'}>
            <input type="file" multiple disabled={busy || !powered} aria-label={`Choose files to upload into ${host}`} onChange={(e) => void upload(e.target.files, e.target)} />
            Files…
          </label>
          <label className={busy || !powered ? 'file-pick disabled' : 'file-pick'}>
            <input
              type="file"
              disabled={busy || !powered}
              aria-label={`Choose a folder (an appendonlydir) to upload into ${host}`}
              ref={(el) => el?.setAttribute('webkitdirectory', '')}
              onChange={(e) => void upload(e.target.files, e.target)}
            />
            A folder…
          </label>
        </div>
        <p className={status?.bad ? 'small bad' : 'small muted'} role="status">
          {status?.text ?? (powered ? 'A dump.rdb, or an appendonlydir folder, from your computer.' : `${host} is powered off.`)}
        </p>
      </div>
    </details>
  );
}
