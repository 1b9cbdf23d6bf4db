import { useState, type ReactNode } from 'react';

/** A button that asks once more before it acts, inline (no browser dialog). */
export function ConfirmButton({ label, question, confirmLabel, onConfirm, className, ariaLabel }: {
  label: ReactNode;
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  className?: string;
  /** The button's accessible name when its label alone would not say what it acts on. */
  ariaLabel?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className={className} aria-label={ariaLabel} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span className="confirm-question">{question}</span>
      <button
        type="button"
        className="primary"
        autoFocus
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
