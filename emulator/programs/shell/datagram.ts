import type { World } from '../../world/world.js';

/**
 * One IP packet that is not part of a TCP connection (an ICMP echo): it
 * takes the link's time like any packet (waiting behind the bytes already
 * queued in that direction, its transmission at the link's bandwidth,
 * half the round trip, the per-packet cost) but nothing resends it. It is
 * lost if the path is cut when it leaves or arrives, or if the receiving
 * host has no power.
 */
export function sendDatagram(world: World, from: string, to: string, bytes: number, delivered: () => void): void {
  const net = world.network;
  const source = world.hosts.get(from);
  if (source === undefined || !source.powered || net.isCut(from, to)) return;
  world.kernel.at(net.arrivalTime(from, to, bytes), () => {
    const target = world.hosts.get(to);
    if (target === undefined || !target.powered || net.isCut(from, to)) return;
    delivered();
  });
}
