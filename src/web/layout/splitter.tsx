import { useRef } from 'react';

interface Props {
  label: string;
  className: string;
  /** The width of the pane it resizes, in CSS pixels. */
  value: number;
  min: number;
  max: number;
  onChange: (width: number) => void;
  /** The pane is to the right of the splitter: dragging left widens it. */
  paneOnRight?: boolean;
}

/** Keyboard steps: an arrow press, and Page Up/Down. */
const STEP_PX = 16;
const PAGE_PX = 96;

/**
 * A vertical bar between two panes that resizes one of them by dragging
 * or with the arrow keys (a focusable WAI-ARIA window splitter).
 */
export function Splitter({ label, className, value, min, max, onChange, paneOnRight = false }: Props) {
  const drag = useRef<{ x: number; width: number } | null>(null);
  const clamp = (w: number): number => Math.round(Math.max(min, Math.min(max, w)));
  const sign = paneOnRight ? -1 : 1;

  return (
    <div
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={value}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      className={`splitter ${className}`}
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        drag.current = { x: e.clientX, width: value };
      }}
      onPointerMove={(e) => {
        const d = drag.current;
        if (d !== null) onChange(clamp(d.width + sign * (e.clientX - d.x)));
      }}
      onPointerUp={() => (drag.current = null)}
      onPointerCancel={() => (drag.current = null)}
      onKeyDown={(e) => {
        const moves: Record<string, number> = { ArrowLeft: -STEP_PX, ArrowRight: STEP_PX, PageUp: -PAGE_PX, PageDown: PAGE_PX };
        if (e.key === 'Home' || e.key === 'End') {
          e.preventDefault();
          onChange(e.key === 'Home' ? min : max);
        } else if (moves[e.key] !== undefined) {
          e.preventDefault();
          onChange(clamp(value + sign * moves[e.key]!));
        }
      }}
    />
  );
}
