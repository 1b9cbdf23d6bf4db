import { useLayoutEffect, useRef, type ReactNode } from 'react';

/**
 * A row of buttons that is one stop of the Tab key, as WAI-ARIA's toolbar
 * pattern has it: Tab enters at the button used last, the arrow keys (and
 * Home, End) move between the buttons, Enter or Space presses one. The
 * panel has many fault buttons; this keeps the keyboard's way through the
 * page short while every button stays one press away.
 */
export function Toolbar({ label, className, children }: { label: string; className?: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const current = useRef(0);

  const buttons = (): HTMLButtonElement[] => [...(ref.current?.querySelectorAll<HTMLButtonElement>('button:not(:disabled)') ?? [])];

  // After every render the buttons may have changed: exactly one can take the focus from Tab.
  useLayoutEffect(() => {
    const all = buttons();
    if (all.length === 0) return;
    if (current.current >= all.length) current.current = all.length - 1;
    all.forEach((b, i) => (b.tabIndex = i === current.current ? 0 : -1));
  });

  const onKeyDown = (e: React.KeyboardEvent): void => {
    const all = buttons();
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    let next: number;
    if (e.key === 'ArrowRight' || e.key === 'ArrowDown') next = (at + 1) % all.length;
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') next = (at + all.length - 1) % all.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = all.length - 1;
    else return;
    e.preventDefault();
    move(all, next);
  };

  const move = (all: HTMLButtonElement[], next: number): void => {
    current.current = next;
    all.forEach((b, i) => (b.tabIndex = i === next ? 0 : -1));
    all[next]!.focus();
  };

  const onFocus = (e: React.FocusEvent): void => {
    const all = buttons();
    const at = all.indexOf(e.target as HTMLButtonElement);
    if (at >= 0 && at !== current.current) {
      current.current = at;
      all.forEach((b, i) => (b.tabIndex = i === at ? 0 : -1));
    }
  };

  return (
    <div ref={ref} role="toolbar" aria-label={label} className={className === undefined ? 'toolbar' : `toolbar ${className}`} onKeyDown={onKeyDown} onFocus={onFocus}>
      {children}
    </div>
  );
}
