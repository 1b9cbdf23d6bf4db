import { useMemo } from 'react';
import { renderMarkdown } from './markdown.js';

/**
 * Lesson Markdown as HTML. The only place the lesson pane inserts HTML:
 * markdown.ts renders with raw HTML off, no images, and http(s) links only.
 */
export function MarkdownView({ text, className }: { text: string; className?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div className={`prose${className ? ` ${className}` : ''}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
