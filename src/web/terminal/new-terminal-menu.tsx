import { useEffect, useRef, useState } from 'react';
import { useStore, useWorkbook } from '../store-context.js';
import type { ClusterView } from '../cluster/cluster-view.js';
import type { TerminalChoice } from '../world-store.js';
import { CLIENT_HOST } from '../world-setup.js';

interface Choice {
  readonly label: string;
  readonly detail: string;
  readonly choice: TerminalChoice;
}

/** What a new tab can run, from the world as it is: redis-cli to each server from the client machine, a shell on each machine. */
export function terminalChoices(cluster: ClusterView): Choice[] {
  const out: Choice[] = [];
  const client = cluster.hosts.some((h) => h.name === CLIENT_HOST) ? CLIENT_HOST : cluster.hosts[0]?.name;
  for (const h of cluster.hosts) {
    for (const s of h.servers) {
      if (client === undefined) continue;
      out.push({
        label: `redis-cli to ${h.name}:${s.port}`,
        detail: `on ${client}`,
        choice: { kind: 'redis-cli', from: client, to: h.name, port: s.port },
      });
    }
  }
  for (const h of cluster.hosts) out.push({ label: `Shell on ${h.name}`, detail: 'root', choice: { kind: 'shell', host: h.name } });
  return out;
}

/** The "+" button of the tab bar and its menu. Arrow keys move in the menu, Escape closes it. */
export function NewTerminalMenu() {
  const store = useStore();
  const cluster = useWorkbook((s) => s.cluster);
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const choices = terminalChoices(cluster);

  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLButtonElement>('[role="menuitem"]')?.focus();
    const away = (e: PointerEvent): void => {
      if (!menu.current?.contains(e.target as Node) && !button.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', away);
    return () => document.removeEventListener('pointerdown', away);
  }, [open]);

  const close = (refocus: boolean): void => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };

  const onMenuKey = (e: React.KeyboardEvent): void => {
    const items = [...(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      close(true);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = (at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
      items[next]?.focus();
    } else if (e.key === 'Tab') {
      close(false);
    }
  };

  return (
    <div className="new-terminal">
      <button
        ref={button}
        type="button"
        className="icon-button new-terminal-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label="New terminal"
        title="New terminal"
        onClick={() => setOpen(!open)}
      >
        <span aria-hidden="true">+</span>
      </button>
      {open ? (
        <div ref={menu} className="menu" role="menu" aria-label="New terminal" onKeyDown={onMenuKey}>
          {choices.map((c) => (
            <button
              key={c.label}
              type="button"
              role="menuitem"
              className="menu-item"
              onClick={() => {
                close(false);
                store.openTerminal(c.choice);
              }}
            >
              <span>{c.label}</span>
              <span className="muted">{c.detail}</span>
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
