import { useLayoutEffect, useState, type RefObject } from 'react';

/**
 * The height each line of a wrapping text area takes on screen, in CSS
 * pixels, kept up to date as the text or the area's width changes (a
 * pane resized). A code cell wraps its long lines rather than cutting
 * them at the pane's edge; its gutter gives each line number the height
 * of its line, so the numbers stay beside the lines they count.
 *
 * The heights are measured on a hidden copy of the text laid out like
 * the area (same font, width and padding), one block per line: a text
 * area does not tell where its own lines wrap. Null until measured.
 */
export function useWrappedLineHeights(area: RefObject<HTMLTextAreaElement | null>, text: string): readonly number[] | null {
  const [heights, setHeights] = useState<readonly number[] | null>(null);
  useLayoutEffect(() => {
    const el = area.current;
    if (el === null || el.parentElement === null) return;
    const mirror = document.createElement('div');
    mirror.setAttribute('aria-hidden', 'true');
    mirror.className = 'cell-code-mirror';
    el.parentElement.appendChild(mirror);
    const measure = (): void => {
      const style = getComputedStyle(el);
      mirror.style.width = `${el.clientWidth}px`;
      mirror.style.paddingLeft = style.paddingLeft;
      mirror.style.paddingRight = style.paddingRight;
      mirror.style.tabSize = style.tabSize;
      mirror.replaceChildren(
        ...text.split('\n').map((line) => {
          const row = document.createElement('div');
          // An empty line still takes a line's height.
          row.textContent = line === '' ? '\u200b' : line;
          return row;
        }),
      );
      const next = [...mirror.children].map((row) => row.getBoundingClientRect().height);
      setHeights((prev) => (prev !== null && prev.length === next.length && prev.every((h, i) => h === next[i]) ? prev : next));
    };
    measure();
    const resize = new ResizeObserver(measure);
    resize.observe(el);
    return () => {
      resize.disconnect();
      mirror.remove();
    };
  }, [area, text]);
  return heights;
}
