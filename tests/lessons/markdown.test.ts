import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/web/lesson/markdown.js';

describe('lesson Markdown', () => {
  it('shows raw HTML as text', () => {
    const html = renderMarkdown('A key named <img src=x onerror=alert(1)> and <script>alert(2)</script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('opens http and https links in a new tab that gets no handle on the page', () => {
    expect(renderMarkdown('[the book](https://redis.io/docs/)')).toBe(
      '<p><a href="https://redis.io/docs/" target="_blank" rel="noopener noreferrer">the book</a></p>\n',
    );
  });

  it('drops links to anything but http and https, and images', () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'file:///etc/passwd', '/relative', 'vbscript:x']) {
      expect(renderMarkdown(`[click](${url})`), url).not.toContain('<a');
    }
    expect(renderMarkdown('![a picture](https://example.com/x.png)')).not.toContain('<img');
  });

  it('keeps code, tables and emphasis', () => {
    const html = renderMarkdown('`SET a 1` is **bold**\n\n| a | b |\n| - | - |\n| 1 | 2 |\n');
    expect(html).toContain('<code>SET a 1</code>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<table>');
  });
});
