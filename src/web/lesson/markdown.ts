import MarkdownIt from 'markdown-it';

/**
 * Lesson prose as HTML, safe to insert: raw HTML in the Markdown is shown
 * as text (html: false), images are not rendered (nothing is fetched from
 * outside the page), and only http and https links survive, each opening
 * in a new tab without giving it a handle on this one.
 */
const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
md.disable(['image']);
md.validateLink = (url: string) => /^https?:\/\//i.test(url.trim());

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  token.attrSet('target', '_blank');
  token.attrSet('rel', 'noopener noreferrer');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

export function renderMarkdown(text: string): string {
  return md.render(text);
}

/** One line of Markdown without a paragraph around it (check messages, titles). */
export function renderInline(text: string): string {
  return md.renderInline(text);
}
