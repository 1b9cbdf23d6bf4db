import type { World } from '../../world/world.js';

/**
 * Names and addresses on the simulated network: each host has its address
 * (Host.ip), knows itself as 127.0.1.1 and 'localhost' as the loopback,
 * the way Debian's /etc/hosts has it.
 */
export interface Resolved {
  /** The world host the address belongs to. */
  readonly host: string;
  /** The address, as ping shows it. */
  readonly address: string;
  /** Through the loopback interface (the same machine). */
  readonly loopback: boolean;
  /** ::1 rather than an IPv4 address. */
  readonly ipv6: boolean;
}

export function hostAddress(world: World, name: string): string | null {
  return world.hosts.get(name)?.ip ?? null;
}

/** What `target` names, seen from host `from`; null when nothing answers to it. */
export function resolveHost(world: World, from: string, target: string): Resolved | null {
  if (target === 'localhost' || target === 'ip6-localhost' || target === '::1') {
    return { host: from, address: '::1', loopback: true, ipv6: true };
  }
  if (/^127\.\d+\.\d+\.\d+$/.test(target)) return { host: from, address: target, loopback: true, ipv6: false };
  if (target === from) return { host: from, address: '127.0.1.1', loopback: true, ipv6: false };
  if (world.hosts.has(target)) return { host: target, address: hostAddress(world, target)!, loopback: false, ipv6: false };
  for (const h of world.hosts.keys()) {
    const addr = hostAddress(world, h)!;
    if (addr === target) return { host: h, address: addr, loopback: h === from, ipv6: false };
  }
  return null;
}

/** The name an address resolves back to (reverse lookup in /etc/hosts). */
export function reverseName(from: string, r: Resolved): string {
  if (r.address === '::1' || r.address.startsWith('127.0.0.')) return 'localhost';
  return r.host === from && r.address === '127.0.1.1' ? from : r.host;
}
