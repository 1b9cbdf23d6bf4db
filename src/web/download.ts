/**
 * Saves bytes as a file on the learner's machine: a Blob behind a
 * temporary object URL, clicked through an <a download>, and the URL
 * revoked once the browser has taken the data. Nothing leaves the page.
 */
export function downloadBytes(name: string, bytes: Uint8Array): void {
  // A copy, so the Blob holds exactly these bytes whatever view they come in.
  downloadBlob(new Blob([bytes.slice()], { type: 'application/octet-stream' }), downloadName(name));
}

/** Offers text (JSON unless told otherwise) as a file to download under `name`. */
export function downloadText(text: string, name: string, type = 'application/json'): void {
  downloadBlob(new Blob([text], { type }), name);
}

function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  // The click starts the download asynchronously: revoke after it has had time to read the Blob.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A name the browser accepts: the file's own name (a byte string, UTF-8), without path separators or control characters. */
export function downloadName(byteName: string): string {
  const raw = Uint8Array.from(byteName, (c) => c.charCodeAt(0) & 0xff);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(raw);
  const clean = text.replace(/[\x00-\x1f\x7f/\\]/g, '_').trim();
  return clean === '' || clean === '.' || clean === '..' ? 'file' : clean;
}
