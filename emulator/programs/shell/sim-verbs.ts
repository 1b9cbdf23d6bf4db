import { HOST_PROFILES, type HostProfileName } from '../../sim/host.js';
import { LINK_PROFILES, parseBandwidth, parseDurationUs, type LinkProfile, type LinkProfileName } from '../../sim/links.js';
import { installRedisHost } from '../host-setup.js';
import { hostAddress } from './addresses.js';
import type { Command, CommandContext } from './context.js';
import { strftime } from './dates.js';
import { errnoText } from './errors.js';

/**
 * `sim`: what only a simulation can do to its world — cut and heal links,
 * change their latency and bandwidth, pull a machine's power, fill or
 * break its disk, flip a byte, move time, read the trace. These are not
 * Linux commands; their output is our own.
 */
export const sim: Command = (ctx, args) => {
  const verb = args[0];
  if (verb === undefined || verb === 'help' || verb === '--help') {
    ctx.out(SIM_HELP);
    return verb === undefined ? 1 : 0;
  }
  const fn = VERBS[verb];
  if (fn === undefined) {
    ctx.err(`sim: unknown verb '${verb}' (sim help lists them)\n`);
    return 1;
  }
  try {
    return fn(ctx, args.slice(1));
  } catch (e) {
    // The world refuses (unknown host, bad name...): say why.
    ctx.err(`sim ${verb}: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
};

export const SIM_HELP = `sim: what a simulation can do to its world
  sim hosts                        hosts, power, profile, processes
  sim links                        links between hosts, their profile and cuts
  sim partition A B [--one-way]    cut the network between A and B (only A -> B with --one-way)
  sim heal [A B]                   heal the cut between A and B, or every cut
  sim link A B unix|localhost|lan|vpn   give the path between A and B a ready profile
  sim latency A B 48ms             set the round trip between A and B
  sim bandwidth A B 1.8mbit        set the bandwidth between A and B
  sim power-loss A                 cut A's power: processes die, the page cache is lost
  sim power-on A                   boot A again (nothing runs until started)
  sim disk-full A [on|off]         make writes that need space fail with ENOSPC
  sim disk-error A write|fsync|rename [N]   make the next N such calls fail with EIO
  sim flip-byte A PATH [OFFSET]    silently corrupt one byte of a file
  sim advance 5s                   let virtual time pass (us, ms, s, m)
  sim time                         the virtual time
  sim trace [N]                    the last N lines of the world's trace (default 20)
  sim speed X                      virtual seconds per wall second, 0.1 to 100 (realtime only)
  sim pause | sim resume           stop and restart virtual time (realtime only)
  sim add-host NAME [PROFILE]      a new machine with redis-server installed (metal, kvm, xen, core2duo)
  sim ssh NAME                     continue this shell on another host
`;

type Verb = (ctx: CommandContext, args: string[]) => number;

function usage(ctx: CommandContext, text: string): number {
  ctx.err(`usage: ${text}\n`);
  return 1;
}

function hostArg(ctx: CommandContext, name: string | undefined): string | null {
  if (name === undefined) return null;
  if (!ctx.world.hosts.has(name)) {
    ctx.err(`sim: no host named '${name}' (sim hosts lists them)\n`);
    return null;
  }
  return name;
}

/** Changes one property of the link between two hosts, keeping the others. */
function tuneLink(ctx: CommandContext, a: string, b: string, change: Partial<LinkProfile>): LinkProfile {
  const current = ctx.world.network.link(a, b).profile;
  const profile: LinkProfile = { ...current, ...change, name: current.name.endsWith('*') ? current.name : `${current.name}*` };
  ctx.world.network.setLink(a, b, profile);
  return profile;
}

function describeLink(p: LinkProfile): string {
  const bw = p.bandwidthBps >= 1e9 ? `${p.bandwidthBps / 1e9}gbit` : p.bandwidthBps >= 1e6 ? `${p.bandwidthBps / 1e6}mbit` : `${p.bandwidthBps / 1e3}kbit`;
  return `${p.name}: rtt ${p.rttUs / 1000}ms, ${bw}`;
}

const VERBS: Record<string, Verb> = {
  hosts(ctx) {
    const rows = [['HOST', 'ADDRESS', 'PROFILE', 'POWER', 'PROCESSES']];
    for (const [name, h] of ctx.world.hosts) {
      const procs = [...h.processes.values()].map((p) => `${p.pid} ${p.argv.join(' ')}`).join(', ');
      rows.push([name, hostAddress(ctx.world, name)!, h.profile.name, h.powered ? 'on' : 'off', procs || '-']);
    }
    ctx.out(table(rows));
    return 0;
  },

  links(ctx) {
    const rows = [['LINK', 'PROFILE', 'CUT']];
    for (const l of ctx.world.network.allLinks()) {
      const cut = l.ab.cut && l.ba.cut ? 'both ways' : l.ab.cut ? `${l.a} -> ${l.b}` : l.ba.cut ? `${l.b} -> ${l.a}` : '-';
      rows.push([l.a === l.b ? `${l.a} (within)` : `${l.a} <-> ${l.b}`, describeLink(l.profile), cut]);
    }
    if (rows.length === 1) ctx.out('no links used yet: hosts talk over lan by default, and over localhost within a host\n');
    else ctx.out(table(rows));
    return 0;
  },

  partition(ctx, args) {
    const oneWay = args.includes('--one-way');
    const [a, b] = args.filter((x) => x !== '--one-way');
    if (a === undefined || b === undefined) return usage(ctx, 'sim partition A B [--one-way]');
    if (hostArg(ctx, a) === null || hostArg(ctx, b) === null) return 1;
    ctx.world.network.partition(a, b, oneWay);
    ctx.out(oneWay ? `network cut: ${a} -> ${b} (${b} -> ${a} still works)\n` : `network cut between ${a} and ${b}\n`);
    return 0;
  },

  heal(ctx, args) {
    const [a, b] = args;
    if (a !== undefined && b === undefined) return usage(ctx, 'sim heal [A B]');
    if (a !== undefined && (hostArg(ctx, a) === null || hostArg(ctx, b) === null)) return 1;
    ctx.world.network.heal(a, b);
    ctx.out(a === undefined ? 'every network cut healed\n' : `network between ${a} and ${b} healed\n`);
    return 0;
  },

  link(ctx, args) {
    const [a, b, name] = args;
    if (a === undefined || b === undefined || name === undefined) return usage(ctx, `sim link A B ${Object.keys(LINK_PROFILES).join('|')}`);
    if (hostArg(ctx, a) === null || hostArg(ctx, b) === null) return 1;
    const profile = LINK_PROFILES[name as LinkProfileName];
    if (profile === undefined) {
      ctx.err(`sim link: unknown profile '${name}' (${Object.keys(LINK_PROFILES).join(', ')})\n`);
      return 1;
    }
    ctx.world.link(a, b, profile);
    ctx.out(`${a} <-> ${b}: ${describeLink(profile)}\n`);
    return 0;
  },

  latency(ctx, args) {
    const [a, b, text] = args;
    if (a === undefined || b === undefined || text === undefined) return usage(ctx, 'sim latency A B 48ms');
    if (hostArg(ctx, a) === null || hostArg(ctx, b) === null) return 1;
    const us = parseDurationUs(text);
    if (us === null) {
      ctx.err(`sim latency: cannot read '${text}' as a duration (48ms, 250us, 1.5s)\n`);
      return 1;
    }
    ctx.out(`${a} <-> ${b}: ${describeLink(tuneLink(ctx, a, b, { rttUs: us }))}\n`);
    return 0;
  },

  bandwidth(ctx, args) {
    const [a, b, text] = args;
    if (a === undefined || b === undefined || text === undefined) return usage(ctx, 'sim bandwidth A B 1.8mbit');
    if (hostArg(ctx, a) === null || hostArg(ctx, b) === null) return 1;
    const bps = parseBandwidth(text);
    if (bps === null || !(bps > 0)) {
      ctx.err(`sim bandwidth: cannot read '${text}' as a bandwidth (1gbit, 1.8mbit, 512kbit)\n`);
      return 1;
    }
    ctx.out(`${a} <-> ${b}: ${describeLink(tuneLink(ctx, a, b, { bandwidthBps: bps }))}\n`);
    return 0;
  },

  'power-loss'(ctx, args) {
    const a = hostArg(ctx, args[0]);
    if (a === null) return args[0] === undefined ? usage(ctx, 'sim power-loss A') : 1;
    const h = ctx.world.host(a);
    if (!h.powered) {
      ctx.out(`${a} is already off\n`);
      return 0;
    }
    h.powerOff();
    ctx.out(`${a}: power cut; every process died and what was not on the disk yet is lost\n`);
    return 0;
  },

  'power-on'(ctx, args) {
    const a = hostArg(ctx, args[0]);
    if (a === null) return args[0] === undefined ? usage(ctx, 'sim power-on A') : 1;
    const h = ctx.world.host(a);
    if (h.powered) {
      ctx.out(`${a} is already on\n`);
      return 0;
    }
    h.powerOn();
    ctx.out(`${a}: booted; nothing runs until you start it\n`);
    return 0;
  },

  'disk-full'(ctx, args) {
    const a = hostArg(ctx, args[0]);
    if (a === null) return args[0] === undefined ? usage(ctx, 'sim disk-full A [on|off]') : 1;
    const state = args[1] ?? 'on';
    if (state !== 'on' && state !== 'off') return usage(ctx, 'sim disk-full A [on|off]');
    ctx.world.host(a).disk.setFull(state === 'on');
    ctx.out(state === 'on' ? `${a}: disk full (writes that need space fail with ENOSPC)\n` : `${a}: disk has space again\n`);
    return 0;
  },

  'disk-error'(ctx, args) {
    const a = hostArg(ctx, args[0]);
    const op = args[1];
    if (a === null) return args[0] === undefined ? usage(ctx, 'sim disk-error A write|fsync|rename [N]') : 1;
    if (op !== 'write' && op !== 'fsync' && op !== 'rename') return usage(ctx, 'sim disk-error A write|fsync|rename [N]');
    const n = args[2] === undefined ? 1 : Number(args[2]);
    if (!Number.isInteger(n) || n < 1) return usage(ctx, 'sim disk-error A write|fsync|rename [N]');
    ctx.world.host(a).disk.failNext(op, n);
    ctx.out(`${a}: the next ${n === 1 ? op : `${n} ${op}`} call${n === 1 ? '' : 's'} will fail with EIO\n`);
    return 0;
  },

  'flip-byte'(ctx, args) {
    const a = hostArg(ctx, args[0]);
    const path = args[1];
    if (a === null || path === undefined) return a === null && args[0] !== undefined ? 1 : usage(ctx, 'sim flip-byte A PATH [OFFSET]');
    const abs = a === ctx.host.name ? ctx.resolve(path) : path.startsWith('/') ? path : `/root/${path}`;
    let offset: number | undefined;
    if (args[2] !== undefined) {
      offset = Number(args[2]);
      if (!Number.isInteger(offset) || offset < 0) return usage(ctx, 'sim flip-byte A PATH [OFFSET]');
    }
    const disk = ctx.world.host(a).disk;
    try {
      disk.flipByte(abs, offset);
    } catch (e) {
      ctx.err(`sim flip-byte: ${path}: ${e instanceof RangeError ? e.message : errnoText(e)}\n`);
      return 1;
    }
    const flipped = ctx.world.trace.find('flip-byte', a).pop();
    ctx.out(`${a}: ${flipped?.text.replace(/^(\S+) offset (\d+)$/, 'flipped the byte at offset $2 of $1') ?? `flipped a byte of ${abs}`}\n`);
    return 0;
  },

  advance(ctx, args) {
    const text = args[0];
    const us = text === undefined ? null : parseDurationUs(text);
    if (us === null) return usage(ctx, 'sim advance 5s');
    if (ctx.driver !== null) ctx.driver.step(us / 1000);
    else ctx.world.advance(us / 1000);
    ctx.out(`${timeText(ctx)}\n`);
    return 0;
  },

  time(ctx) {
    ctx.out(`${timeText(ctx)}${ctx.driver !== null ? `, ${ctx.driver.isPaused ? 'paused' : `running at ${ctx.driver.speed}x`}` : ''}\n`);
    return 0;
  },

  trace(ctx, args) {
    const n = args[0] === undefined ? 20 : Number(args[0]);
    if (!Number.isInteger(n) || n < 0) return usage(ctx, 'sim trace [N]');
    const entries = ctx.world.trace.entries;
    const text = ctx.world.trace.format(n === 0 ? [] : entries.slice(-n));
    if (text !== '') ctx.out(text + '\n');
    return 0;
  },

  speed(ctx, args) {
    if (ctx.driver === null) {
      ctx.err('sim speed: this world runs only when told to (sim advance); there is no speed to set\n');
      return 1;
    }
    const x = Number(args[0]);
    if (args[0] === undefined || !(x >= 0.1 && x <= 100)) return usage(ctx, 'sim speed X (0.1 to 100)');
    ctx.driver.speed = x;
    ctx.out(`virtual time runs at ${x}x\n`);
    return 0;
  },

  pause(ctx) {
    if (ctx.driver === null) {
      ctx.err('sim pause: this world runs only when told to (sim advance)\n');
      return 1;
    }
    ctx.driver.pause();
    ctx.out(`virtual time paused at ${timeText(ctx)}\n`);
    return 0;
  },

  resume(ctx) {
    if (ctx.driver === null) {
      ctx.err('sim resume: this world runs only when told to (sim advance)\n');
      return 1;
    }
    ctx.driver.resume();
    ctx.out(`virtual time runs again at ${ctx.driver.speed}x\n`);
    return 0;
  },

  'add-host'(ctx, args) {
    const [name, profile] = args;
    if (name === undefined) return usage(ctx, `sim add-host NAME [${Object.keys(HOST_PROFILES).join('|')}]`);
    if (profile !== undefined && !(profile in HOST_PROFILES)) {
      ctx.err(`sim add-host: unknown profile '${profile}' (${Object.keys(HOST_PROFILES).join(', ')})\n`);
      return 1;
    }
    const h = ctx.world.addHost(name, (profile ?? 'metal') as HostProfileName);
    installRedisHost(ctx.world, name);
    ctx.out(`${name} (${hostAddress(ctx.world, name)}) added: ${h.profile.name}, ${h.profile.disk} disk\n`);
    return 0;
  },

  ssh(ctx, args) {
    const a = hostArg(ctx, args[0]);
    if (a === null) return args[0] === undefined ? usage(ctx, 'sim ssh NAME') : 1;
    ctx.shell.switchHost(a);
    return 0;
  },
};

function timeText(ctx: CommandContext): string {
  const k = ctx.world.kernel;
  const us = k.now;
  const frac = String(us % 1e6).padStart(6, '0');
  return `${strftime('%Y-%m-%d %H:%M:%S', us)}.${frac} UTC (${((us - k.startUs) / 1e6).toFixed(6)} s since the world began)`;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ') + '\n').join('');
}


/** The verbs `sim` takes, for Tab completion. */
export function simVerbNames(): string[] {
  return Object.keys(VERBS).sort();
}
