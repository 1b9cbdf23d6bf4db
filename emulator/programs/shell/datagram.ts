import type { World } from '../../sim/world.js';

/**
 * One IP packet that is not part of a TCP connection (an ICMP echo): it
 * takes the link's time like any packet (waiting behind the bytes already
 * queued in that direction, its transmission at the link's bandwidth,
 * half the round trip, the per-packet cost) but nothing resends it. It is
 * lost if the path is cut when it leaves or arrives, or if the receiving
 * host has no power.
 *
 * The timing follows the Network's own rules for a segment; Network keeps
 * them private, so they are repeated here.
 */
export function sendDatagram(world: World, from: string, to: string, bytes: number, delivered: () => void): void {
  const net = world.network;
  const source = world.hosts.get(from);
  if (source === undefined || !source.powered || net.isCut(from, to)) return;
  const kernel = world.kernel;
  const link = net.link(from, to);
  const p = link.profile;
  const dir = link.direction(from);
  const depart = Math.max(kernel.now, dir.busyUntil);
  const txUs = (bytes * 8e6) / p.bandwidthBps;
  dir.busyUntil = depart + txUs;
  let arrival = depart + txUs + p.rttUs / 2 + p.perPacketUs;
  if (p.jitterUs > 0) arrival += kernel.random.below(p.jitterUs + 1);
  kernel.at(Math.round(arrival), () => {
    const target = world.hosts.get(to);
    if (target === undefined || !target.powered || net.isCut(from, to)) return;
    delivered();
  });
}
