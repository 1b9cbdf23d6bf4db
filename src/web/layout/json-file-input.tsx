/**
 * The hidden file input behind an "Import…" button: the button clicks it,
 * the learner picks a JSON file, and the input forgets the choice once it is
 * handed on, so that picking the same file again still reads it.
 */
import type { Ref } from 'react';

export function JsonFileInput({ inputRef, label, onFile }: { inputRef: Ref<HTMLInputElement>; label?: string; onFile: (file: File | undefined) => void }) {
  return (
    <input
      ref={inputRef}
      type="file"
      accept=".json,application/json"
      className="visually-hidden"
      tabIndex={-1}
      aria-hidden="true"
      aria-label={label}
      onChange={(e) => {
        onFile(e.target.files?.[0]);
        e.target.value = '';
      }}
    />
  );
}
