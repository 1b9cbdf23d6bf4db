import { useEffect, useRef } from 'react';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import type { TerminalSession } from './terminal-session.js';
import { XTERM_THEMES } from './xterm-theme.js';

interface Props {
  session: TerminalSession;
  active: boolean;
  theme: 'light' | 'dark';
  /** xterm.js's screen reader mode: output mirrored in a live region, rows readable by a screen reader. */
  screenReaderMode: boolean;
  /** The tab's id, which labels this panel. */
  tabId: string;
}

/**
 * One xterm.js screen showing a terminal session. The session lives in the
 * store; this view only draws it and passes the keys on, so hiding or
 * re-mounting the view loses nothing.
 */
export function TerminalView({ session, active, theme, screenReaderMode, tabId }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<{ terminal: Terminal; fit: () => void } | null>(null);

  useEffect(() => {
    const element = host.current!;
    const terminal = new Terminal({
      convertEol: true,
      cursorBlink: true,
      fontFamily: 'ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace',
      fontSize: 14,
      lineHeight: 1.15,
      scrollback: 5000,
      theme: XTERM_THEMES[theme],
      screenReaderMode,
      // The page does not want links or OSC 52 clipboard writes from terminal output.
      linkHandler: null,
    });
    const fitAddon = new FitAddon();
    terminal.loadAddon(fitAddon);
    terminal.open(element);
    // Tab completes when there is something typed to complete; at an empty
    // prompt, and always with Shift, it moves the focus on as everywhere
    // else on the page, so the terminal never traps a keyboard user. Ctrl-C
    // with a selection copies it.
    terminal.attachCustomKeyEventHandler((e) => {
      if (e.key === 'Tab' && !e.ctrlKey && !e.altKey && !e.metaKey) return !e.shiftKey && session.wantsTab();
      if (e.type === 'keydown' && e.ctrlKey && (e.key === 'c' || e.key === 'C') && terminal.hasSelection()) return false;
      return true;
    });
    const fit = (): void => {
      if (element.offsetParent === null) return;
      fitAddon.fit();
      session.resize(terminal.cols);
    };
    fit();
    term.current = { terminal, fit };
    const sink = (text: string): void => terminal.write(text);
    session.attach(sink);
    const typed = terminal.onData((data) => session.input(data));
    const resize = new ResizeObserver(() => fit());
    resize.observe(element);
    return () => {
      resize.disconnect();
      typed.dispose();
      session.detach(sink);
      term.current = null;
      terminal.dispose();
    };
    // The theme and screen reader mode are applied by the effects below; re-creating the screen for them would be wasteful.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [session]);

  useEffect(() => {
    if (term.current) term.current.terminal.options.theme = XTERM_THEMES[theme];
  }, [theme]);

  useEffect(() => {
    if (term.current) term.current.terminal.options.screenReaderMode = screenReaderMode;
  }, [screenReaderMode]);

  useEffect(() => {
    if (!active || !term.current) return;
    term.current.fit();
    term.current.terminal.focus();
  }, [active]);

  return <div ref={host} className="terminal-screen" role="tabpanel" id={`panel-${tabId}`} aria-labelledby={`tab-${tabId}`} hidden={!active} />;
}
