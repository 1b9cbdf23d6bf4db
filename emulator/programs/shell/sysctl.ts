import type { Command } from './context.js';

/**
 * The one kernel setting the shell models: the range of local ports a host
 * picks from for its outgoing connections. Its file under /proc/sys holds the
 * two numbers separated by a tab.
 */
const PORT_RANGE_KEY = 'net.ipv4.ip_local_port_range';

/**
 * sysctl from procps: `sysctl KEY` prints "KEY = VALUE"; `sysctl -w KEY=VALUE`
 * (or just KEY=VALUE) sets it until the next boot and echoes what was given.
 * `-n` prints values only, `-q` keeps a write quiet. Keys other than the
 * port range are not modelled and read as missing files.
 */
export const sysctl: Command = (ctx, args) => {
  let valuesOnly = false;
  let quiet = false;
  let write = false;
  const items: string[] = [];
  for (const a of args) {
    if (/^-[nqw]+$/.test(a)) {
      valuesOnly ||= a.includes('n');
      quiet ||= a.includes('q');
      write ||= a.includes('w');
    } else if (a.startsWith('-')) {
      ctx.err(`sysctl: invalid option -- '${a.slice(1, 2)}'\nTry 'sysctl --help' for more information.\n`);
      return 1;
    } else items.push(a);
  }
  if (items.length === 0) {
    ctx.err('sysctl: no variables specified\nTry `sysctl --help\' for more information.\n');
    return 1;
  }
  let status = 0;
  for (const item of items) {
    const eq = item.indexOf('=');
    if (write || eq >= 0) {
      if (eq < 0) {
        ctx.err(`sysctl: "${item}" must be of the form name=value\n`);
        status = 1;
        continue;
      }
      const key = normalizeKey(item.slice(0, eq));
      const value = item.slice(eq + 1);
      if (key !== PORT_RANGE_KEY) {
        ctx.err(`sysctl: cannot stat ${procPath(key)}: No such file or directory\n`);
        status = 1;
        continue;
      }
      const m = /^\s*(\d+)\s+(\d+)\s*$/.exec(value);
      if (m === null || !ctx.world.network.setPortRange(ctx.host.name, Number(m[1]), Number(m[2]))) {
        ctx.err(`sysctl: setting key "${key}": Invalid argument\n`);
        status = 1;
        continue;
      }
      if (!quiet) ctx.out(valuesOnly ? `${value}\n` : `${key} = ${value}\n`);
    } else {
      const key = normalizeKey(item);
      if (key !== PORT_RANGE_KEY) {
        ctx.err(`sysctl: cannot stat ${procPath(key)}: No such file or directory\n`);
        status = 1;
        continue;
      }
      const { first, last } = ctx.world.network.portRange(ctx.host.name);
      const value = `${first}\t${last}`;
      ctx.out(valuesOnly ? `${value}\n` : `${key} = ${value}\n`);
    }
  }
  return status;
};

/** sysctl accepts slashes for dots (net/ipv4/...). */
function normalizeKey(key: string): string {
  return key.trim().replaceAll('/', '.');
}

function procPath(key: string): string {
  return `/proc/sys/${key.replaceAll('.', '/')}`;
}
