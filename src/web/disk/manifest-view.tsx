import { explainManifest } from '../../../emulator/persistence/inspect/index.js';
import { terminalText } from '../terminal/sanitize.js';
import type { OpenedFile } from './opened-file.js';

const ROLE_NAMES = { base: 'base', history: 'history', incr: 'incremental', comment: 'comment', invalid: 'invalid' } as const;

/** A multi-part AOF's manifest, line by line: which file each line names, its sequence number and type, and what Redis does with it. */
export function ManifestView({ file }: { file: OpenedFile }) {
  let text = '';
  for (const b of file.bytes) text += String.fromCharCode(b);
  const ex = explainManifest(text);
  return (
    <div className="manifest-view">
      <p className="small">
        Redis 7.0 keeps the append-only file as several files in a directory; this manifest lists them. Each line is <code>file NAME seq N type T</code>, where T is{' '}
        <b>b</b> (the base), <b>h</b> (history) or <b>i</b> (incremental).
      </p>
      <table className="manifest-lines">
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">As written</th>
            <th scope="col">Type</th>
            <th scope="col">Seq</th>
            <th scope="col">Meaning</th>
          </tr>
        </thead>
        <tbody>
          {ex.lines.map((l) => (
            <tr key={l.number} className={l.role === 'invalid' || ex.error?.line === l.number ? 'bad' : undefined}>
              <td className="num">{l.number}</td>
              <td>
                <code>{terminalText(l.raw)}</code>
              </td>
              <td>{ROLE_NAMES[l.role]}</td>
              <td className="num">{l.file?.seq ?? ''}</td>
              <td>{l.text}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {ex.error !== null ? (
        <p className="bad">
          Redis refuses this manifest{ex.error.line !== null ? ` at line ${ex.error.line}` : ''}: {ex.error.reason}. It does not start.
        </p>
      ) : (
        <p>
          On start, Redis loads {ex.loadOrder.length === 0 ? 'nothing' : ex.loadOrder.map((n) => terminalText(n)).join(', then ')}
          {ex.loadOrder.length > 0 ? ', from the directory this manifest is in.' : '.'}
        </p>
      )}
    </div>
  );
}
