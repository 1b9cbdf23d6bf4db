import type { ITheme } from '@xterm/xterm';

/**
 * The terminal's colours for each page theme. xterm.js needs concrete
 * colours (it draws with them), so they live here rather than in CSS; the
 * backgrounds match --terminal-bg in styles.css.
 */
export const XTERM_THEMES: Record<'light' | 'dark', ITheme> = {
  light: {
    background: '#fbfaf7',
    foreground: '#1f2328',
    cursor: '#c9372c',
    cursorAccent: '#fbfaf7',
    selectionBackground: '#c7d7f0',
    black: '#1f2328',
    red: '#b3261e',
    green: '#2f7a37',
    yellow: '#8a6100',
    blue: '#1f5fbf',
    magenta: '#8a3fa0',
    cyan: '#137a7f',
    white: '#6e7781',
    brightBlack: '#57606a',
    brightRed: '#d1242f',
    brightGreen: '#1a7f37',
    brightYellow: '#9a6700',
    brightBlue: '#0969da',
    brightMagenta: '#8250df',
    brightCyan: '#1b7c83',
    brightWhite: '#8c959f',
  },
  dark: {
    background: '#15171c',
    foreground: '#d7dce2',
    cursor: '#ff7b72',
    cursorAccent: '#15171c',
    selectionBackground: '#33476b',
    black: '#484f58',
    red: '#ff7b72',
    green: '#7ee787',
    yellow: '#e3b341',
    blue: '#79c0ff',
    magenta: '#d2a8ff',
    cyan: '#56d4dd',
    white: '#b1bac4',
    brightBlack: '#6e7681',
    brightRed: '#ffa198',
    brightGreen: '#56d364',
    brightYellow: '#f2cc60',
    brightBlue: '#a5d6ff',
    brightMagenta: '#e2c5ff',
    brightCyan: '#b3f0ff',
    brightWhite: '#f0f6fc',
  },
};
