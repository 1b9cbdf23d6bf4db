/**
 * The physical properties of a path between two hosts (or within one).
 * The book's table 4.4 gives latency as a round trip; one-way latency here
 * is half of it.
 */
export interface LinkProfile {
  readonly name: string;
  /** Round-trip time of a small packet, microseconds. */
  readonly rttUs: number;
  /** Bits per second the path carries; bytes queue behind each other at this rate. */
  readonly bandwidthBps: number;
  /** Extra one-way delay of up to this many microseconds, drawn per packet from the seed. */
  readonly jitterUs: number;
  /**
   * Fixed one-way cost of every packet beyond propagation and transmission:
   * protocol-stack work, encapsulation and encryption on tunnels.
   */
  readonly perPacketUs: number;
  /** Bytes of payload per packet (TCP's maximum segment size on this path). */
  readonly mssBytes: number;
}

/**
 * Ready profiles for the rows of the book's table 4.4 (Redis in Action,
 * section 4.5), whose latency column is the round trip:
 *
 * - unix, localhost: 0.015 ms, over 1 gigabit; the per-packet cost is the
 *   kernel's work for a Unix socket versus the loopback TCP stack, calibrated
 *   so that a Python-like client's loop runs as the table's two local rows
 *   relate (the TCP path costs about 4 us more per packet than the Unix one).
 * - lan: a remote machine on a shared switch, 1 gigabit, 0.271 ms.
 * - vpn: a remote machine through a VPN, 1.8 megabit, 48 ms; the tunnel adds
 *   about 3.2 ms per packet each way (encapsulation, encryption and the
 *   serialization of its framing at 1.8 megabit), calibrated from the
 *   table's VPN row, where each call spends about 54 ms per round trip.
 */
export const LINK_PROFILES = {
  unix: { name: 'unix', rttUs: 15, bandwidthBps: 10e9, jitterUs: 0, perPacketUs: 1, mssBytes: 65_536 },
  localhost: { name: 'localhost', rttUs: 15, bandwidthBps: 10e9, jitterUs: 0, perPacketUs: 4.8, mssBytes: 65_483 },
  lan: { name: 'lan', rttUs: 271, bandwidthBps: 1e9, jitterUs: 0, perPacketUs: 0.5, mssBytes: 1448 },
  vpn: { name: 'vpn', rttUs: 48_000, bandwidthBps: 1.8e6, jitterUs: 0, perPacketUs: 3200, mssBytes: 1380 },
} as const satisfies Record<string, LinkProfile>;

export type LinkProfileName = keyof typeof LINK_PROFILES;

/** Parses '48ms', '0.271ms', '15us', '2s' into microseconds. */
export function parseDurationUs(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)(us|ms|s|m)?$/.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]);
  const unit = m[2] ?? 'ms';
  const factor = unit === 'us' ? 1 : unit === 'ms' ? 1000 : unit === 's' ? 1e6 : 60e6;
  return Math.round(n * factor);
}

/** Parses '1gbit', '1.8mbit', '100mbit', '10kbit' into bits per second. */
export function parseBandwidth(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(k|m|g)?(bit|bps|b)?$/i.exec(text.trim());
  if (!m) return null;
  const scale = { k: 1e3, m: 1e6, g: 1e9 }[(m[2] ?? '').toLowerCase() as 'k' | 'm' | 'g'] ?? 1;
  return Number(m[1]) * scale;
}
