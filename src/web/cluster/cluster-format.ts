/** Numbers of the cluster panel in words a learner reads at a glance. */

/** A round trip: "0.015 ms", "0.271 ms", "48 ms". */
export function formatRtt(us: number): string {
  const ms = us / 1000;
  return `${ms >= 10 ? Math.round(ms) : Number(ms.toPrecision(3))} ms`;
}

/** "10 Gbit/s", "1.8 Mbit/s", "512 kbit/s". */
export function formatBandwidth(bps: number): string {
  const [n, unit] = bps >= 1e9 ? [bps / 1e9, 'Gbit/s'] : bps >= 1e6 ? [bps / 1e6, 'Mbit/s'] : [bps / 1e3, 'kbit/s'];
  return `${Number(n.toPrecision(3))} ${unit}`;
}

/** How long ago, from two virtual times in seconds: "just now", "12 s ago", "5 min ago", "2 h ago". */
export function formatAgo(thenS: number, nowS: number): string {
  const s = Math.max(0, Math.floor(nowS - thenS));
  if (s < 1) return 'just now';
  if (s < 120) return `${s} s ago`;
  if (s < 7200) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}

/** "1 key", "3 keys". */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
