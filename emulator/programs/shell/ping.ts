import type { SimEvent } from '../../sim/kernel.js';
import type { Command } from './context.js';
import { resolveHost, reverseName } from './addresses.js';
import { sendDatagram } from './datagram.js';
import { getopt } from './options.js';

/**
 * ping from iputils 20221126 (Debian 12): one echo request a second (or
 * every -i seconds) over the simulated link, replies timed in virtual
 * microseconds, statistics on Ctrl-C or after -c replies. Echo requests
 * are packets, not a connection: a partition or a dead host loses them
 * and nothing sends them again.
 */
export const ping: Command = (ctx, args) => {
  const opts = getopt('ping', args, { flags: 'qn4', withValue: 'ciWs' });
  if ('error' in opts) {
    ctx.err(opts.error.replace(/Try 'ping --help'.*\n/, '') + USAGE);
    return 2;
  }
  let count = 0;
  const c = opts.values.get('c');
  if (c !== undefined) {
    if (!/^[+-]?\d+$/.test(c.trim())) {
      ctx.err(`ping: invalid argument: '${c}'\n`);
      return 1;
    }
    count = Number(c);
    if (count < 1) {
      ctx.err(`ping: invalid argument: '${c}': out of range: 1 <= value <= 9223372036854775807\n`);
      return 1;
    }
  }
  let intervalUs = 1_000_000;
  const i = opts.values.get('i');
  if (i !== undefined) {
    const v = Number(i);
    if (i.trim() === '' || !Number.isFinite(v) || v < 0) {
      ctx.err(`ping: bad timing interval: ${i}\n`);
      return 2;
    }
    intervalUs = Math.max(2000, Math.round(v * 1e6));
  }
  let lingerUs = 10_000_000;
  const w = opts.values.get('W');
  if (w !== undefined) {
    const v = Number(w);
    if (w.trim() === '' || !Number.isFinite(v) || v < 0) {
      ctx.err(`ping: bad linger time: ${w}\n`);
      return 2;
    }
    lingerUs = Math.round(v * 1e6);
  }
  const quiet = opts.flags.has('q');
  const numericOpt = opts.flags.has('n');
  const target = opts.operands[opts.operands.length - 1];
  if (target === undefined) {
    ctx.err('ping: usage error: Destination address required\n');
    return 1;
  }
  const world = ctx.world;
  const from = ctx.host.name;
  const dest = resolveHost(world, from, target);
  if (dest === null) {
    ctx.err(`ping: ${target}: Name or service not known\n`);
    return 2;
  }
  const numericTarget = /^[\d.]+$/.test(target) || target.includes(':');
  const numeric = numericOpt || numericTarget;
  const peer = numeric ? dest.address : `${reverseName(from, dest)} (${dest.address})`;
  if (dest.ipv6) ctx.out(`PING ${target}(${peer}) 56 data bytes\n`);
  else ctx.out(`PING ${target} (${dest.address}) 56(84) bytes of data.\n`);

  const kernel = world.kernel;
  const startUs = kernel.now;
  let lastSendUs = startUs;
  let transmitted = 0;
  let received = 0;
  let duplicates = 0;
  let tsum = 0;
  let tsum2 = 0;
  let tmin = Number.MAX_SAFE_INTEGER;
  let tmax = 0;
  const sentAt = new Map<number, number>();
  const answered = new Set<number>();
  let sendTimer: SimEvent | null = null;
  let exitTimer: SimEvent | null = null;

  const stop = (): void => {
    kernel.cancel(sendTimer);
    kernel.cancel(exitTimer);
    sendTimer = exitTimer = null;
  };
  const finish = (): void => {
    if (!job.running) return;
    stop();
    let text = `\n--- ${target} ping statistics ---\n${transmitted} packets transmitted, ${received} received`;
    if (duplicates !== 0) text += `, +${duplicates} duplicates`;
    if (transmitted !== 0) {
      const loss = Math.fround(((transmitted - received) * 100) / transmitted);
      text += `, ${formatG(loss)}% packet loss, time ${Math.floor((lastSendUs - startUs + 500) / 1000)}ms`;
    }
    text += '\n';
    if (received !== 0) {
      const total = received + duplicates;
      const avg = Math.trunc(tsum / total);
      const variance = Math.trunc(tsum < 2 ** 31 - 1 ? (tsum2 - (tsum * tsum) / total) / total : tsum2 / total - avg * avg);
      const mdev = Math.floor(Math.sqrt(Math.max(0, variance)));
      text += `rtt min/avg/max/mdev = ${ms3(tmin)}/${ms3(avg)}/${ms3(tmax)}/${ms3(mdev)} ms\n`;
    } else {
      text += '\n';
    }
    ctx.out(text);
    job.finish(received !== 0 ? 0 : 1);
  };

  const reply = (seq: number): void => {
    if (!job.running) return;
    const trip = kernel.now - sentAt.get(seq)!;
    const dup = answered.has(seq);
    if (dup) duplicates++;
    else {
      answered.add(seq);
      received++;
      tsum += trip;
      tsum2 += trip * trip;
      if (trip < tmin) tmin = trip;
      if (trip > tmax) tmax = trip;
    }
    if (!quiet) ctx.out(`64 bytes from ${peer}: icmp_seq=${seq} ttl=64 time=${tripText(trip)} ms${dup ? ' (DUP!)' : ''}\n`);
    if (count !== 0 && received >= count) finish();
  };

  const send = (): void => {
    sendTimer = null;
    if (!job.running) return;
    const seq = ++transmitted;
    lastSendUs = kernel.now;
    sentAt.set(seq, kernel.now);
    // 56 bytes of data, an 8-byte ICMP header and a 20-byte IP header each way.
    sendDatagram(world, from, dest.host, 84, () => {
      sendDatagram(world, dest.host, from, 84, () => reply(seq));
    });
    if (count === 0 || transmitted < count) {
      sendTimer = kernel.after(intervalUs, send);
    } else {
      // The last request is out: wait twice the slowest reply (at least one
      // interval), or the linger time when nothing has come back yet.
      const waitUs = received !== 0 ? Math.max(2 * tmax, intervalUs) : lingerUs;
      exitTimer = kernel.after(waitUs, finish);
    }
  };

  const job = ctx.foreground('ping', ['ping', ...args], { onInterrupt: finish, onKilled: stop });
  send();
  return 'job';
};

const USAGE = `
Usage
  ping [options] <destination>

Options:
  <destination>      dns name or ip address
  -c <count>         stop after <count> replies
  -i <interval>      seconds between sending each packet
  -n                 no dns name resolution
  -q                 quiet output
  -W <timeout>       time to wait for response

For more details see ping(8).
`;

/** iputils prints round trips to 3 significant decimals for small ones, fewer as they grow. */
function tripText(us: number): string {
  if (us >= 100_000 - 50) return String(Math.floor((us + 500) / 1000));
  if (us >= 10_000 - 5) return `${Math.floor((us + 50) / 1000)}.${Math.floor(((us + 50) % 1000) / 100)}`;
  if (us >= 1000) return `${Math.floor((us + 5) / 1000)}.${String(Math.floor(((us + 5) % 1000) / 10)).padStart(2, '0')}`;
  return `${Math.floor(us / 1000)}.${String(us % 1000).padStart(3, '0')}`;
}

function ms3(us: number): string {
  return `${Math.floor(us / 1000)}.${String(us % 1000).padStart(3, '0')}`;
}

/** printf's %g: six significant digits, no trailing zeros. */
export function formatG(x: number): string {
  if (x === 0) return '0';
  const exp = Math.floor(Math.log10(Math.abs(x)));
  if (exp < -4 || exp >= 6) {
    const [m, e] = x.toExponential(5).split('e');
    const mant = m!.includes('.') ? m!.replace(/\.?0+$/, '') : m!;
    const n = Number(e);
    return `${mant}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  const s = x.toFixed(Math.max(0, 5 - exp));
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}
