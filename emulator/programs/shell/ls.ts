import type { DiskStat, FileSystem } from '../../sim/disk-api.js';
import { bytesToUtf8 } from '../../resp/bytes.js';
import type { Command, CommandContext } from './context.js';
import { strftime } from './dates.js';
import { errnoText } from './errors.js';
import { getopt } from './options.js';
import { quoteArg, shellQuote } from './quoting.js';

/**
 * ls from GNU coreutils 9.1 in the C locale: names sorted bytewise; on a
 * terminal, names in columns (tabs every 8 columns) and quoted when a
 * shell would need it; otherwise one per line, as is. -l shows sizes and
 * modification times from the simulated disk; everything belongs to root.
 */
export const ls: Command = (ctx, args) => {
  const opts = getopt('ls', args, {
    flags: 'laAh1dC',
    long: { all: 'a', 'almost-all': 'A', 'human-readable': 'h', directory: 'd' },
  });
  if ('error' in opts) {
    ctx.err(opts.error);
    return 2;
  }
  const f = opts.flags;
  const layout: Layout = {
    long: f.has('l'),
    all: f.has('a'),
    almostAll: f.has('A') && !f.has('a'),
    human: f.has('h'),
    // -1 wins over the terminal's columns; -l ignores both.
    columns: f.has('1') ? false : f.has('C') || ctx.isTerminal,
    quote: ctx.isTerminal,
  };
  const disk = ctx.host.disk;
  const operands = opts.operands.length === 0 ? ['.'] : opts.operands;
  let status = 0;
  const files: Entry[] = [];
  const dirs: Array<{ shown: string; path: string }> = [];
  for (const shown of operands) {
    const path = ctx.resolve(shown);
    let st: DiskStat;
    try {
      st = disk.stat(path);
    } catch (e) {
      ctx.err(`ls: cannot access ${quoteArg(shown)}: ${errnoText(e)}\n`);
      status = 2;
      continue;
    }
    if (st.isDirectory && !f.has('d')) dirs.push({ shown, path });
    else files.push({ name: shown, stat: st, nlink: st.isDirectory ? linkCount(disk, path) : 1 });
  }
  files.sort(byName);
  dirs.sort((a, b) => (a.shown < b.shown ? -1 : a.shown > b.shown ? 1 : 0));
  let printed = false;
  if (files.length !== 0) {
    ctx.out(render(ctx, files, layout, false));
    printed = true;
  }
  const headers = operands.length > 1;
  for (const d of dirs) {
    let entries: Entry[];
    try {
      entries = readEntries(disk, d.path, layout);
    } catch (e) {
      ctx.err(`ls: cannot open directory ${quoteArg(d.shown)}: ${errnoText(e)}\n`);
      status = 2;
      continue;
    }
    let text = '';
    if (printed) text += '\n';
    if (headers) text += `${layout.quote ? shellQuote(d.shown) : d.shown}:\n`;
    text += render(ctx, entries, layout, true);
    ctx.out(text);
    printed = true;
  }
  return status;
};

interface Layout {
  long: boolean;
  all: boolean;
  almostAll: boolean;
  human: boolean;
  columns: boolean;
  quote: boolean;
}

interface Entry {
  name: string;
  stat: DiskStat;
  nlink: number;
}

function byName(a: Entry, b: Entry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function readEntries(disk: FileSystem, path: string, layout: Layout): Entry[] {
  const names = disk.readdir(path).filter((n) => layout.all || layout.almostAll || !n.startsWith('.'));
  if (layout.all) names.push('.', '..');
  const entries: Entry[] = [];
  for (const name of names) {
    const full = name === '.' ? path : name === '..' ? parentOf(path) : path === '/' ? `/${name}` : `${path}/${name}`;
    const stat = disk.stat(full);
    entries.push({ name, stat, nlink: stat.isDirectory ? linkCount(disk, full) : 1 });
  }
  return entries.sort(byName);
}

function parentOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut <= 0 ? '/' : path.slice(0, cut);
}

/** A directory's link count: its name, its '.', and the '..' of each subdirectory. */
function linkCount(disk: FileSystem, path: string): number {
  let n = 2;
  for (const name of disk.readdir(path)) {
    const full = path === '/' ? `/${name}` : `${path}/${name}`;
    if (disk.stat(full).isDirectory) n++;
  }
  return n;
}

function render(ctx: CommandContext, entries: Entry[], layout: Layout, isDirListing: boolean): string {
  if (entries.length === 0) return layout.long && isDirListing ? 'total 0\n' : '';
  const shown = entries.map((e) => (layout.quote ? shellQuote(e.name) : e.name));
  // When some names are quoted, the others move one column right so that
  // the names themselves line up (coreutils' align_variable_outer_quotes).
  const someQuoted = layout.quote && shown.some((s) => s[0] === "'" || s[0] === '"' || s[0] === '$');
  const aligned = shown.map((s) => (someQuoted && (layout.long || layout.columns) && !(s[0] === "'" || s[0] === '"' || s[0] === '$') ? ' ' + s : s));
  if (layout.long) return longListing(ctx, entries, aligned, layout, isDirListing);
  if (!layout.columns) return aligned.map((s) => s + '\n').join('');
  return columns(aligned, ctx.columns);
}

function longListing(ctx: CommandContext, entries: Entry[], names: string[], layout: Layout, isDirListing: boolean): string {
  const now = ctx.world.kernel.now;
  const rows = entries.map((e) => ({
    mode: e.stat.isDirectory ? 'drwxr-xr-x' : '-rw-r--r--',
    nlink: String(e.nlink),
    size: layout.human ? humanSize(e.stat.size) : String(e.stat.size),
    date: lsDate(e.stat.mtimeUs, now),
  }));
  const linkWidth = Math.max(...rows.map((r) => r.nlink.length));
  const sizeWidth = Math.max(...rows.map((r) => r.size.length));
  let out = '';
  if (isDirListing) {
    let blocks = 0;
    for (const e of entries) blocks += blocksOf(e.stat);
    out += `total ${layout.human ? humanSize(blocks * 1024) : blocks}\n`;
  }
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    out += `${r.mode} ${r.nlink.padStart(linkWidth)} root root ${r.size.padStart(sizeWidth)} ${r.date} ${names[i]}\n`;
  }
  return out;
}

/** Kilobytes allocated: whole 4 KiB blocks, as on ext4. */
function blocksOf(st: DiskStat): number {
  return Math.ceil(st.size / 4096) * 4;
}

/** "Jan  1 00:00" within six months before now, "Jan  1  2025" otherwise. */
function lsDate(mtimeUs: number, nowUs: number): string {
  const sixMonthsUs = (31_556_952 / 2) * 1e6;
  const recent = mtimeUs > nowUs - sixMonthsUs && mtimeUs <= nowUs;
  return strftime(recent ? '%b %e %H:%M' : '%b %e  %Y', mtimeUs);
}

/** ls -h: powers of 1024, rounded up, one decimal below 10 ("4.0K", "13K", "1.0M"). */
export function humanSize(n: number): string {
  if (n < 1024) return String(n);
  const units = 'KMGTPE';
  let k = 0;
  let scale = 1024;
  while (k < units.length - 1 && n >= scale * 1024) {
    scale *= 1024;
    k++;
  }
  const tenths = Math.ceil((n * 10) / scale);
  if (tenths < 100) return `${Math.floor(tenths / 10)}.${tenths % 10}${units[k]}`;
  const whole = Math.ceil(n / scale);
  if (whole >= 1024 && k < units.length - 1) return `1.0${units[k + 1]}`;
  return `${whole}${units[k]}`;
}

/**
 * Names in columns, filled top to bottom, as many columns as fit the line
 * (coreutils' calculate_columns): each column is as wide as its longest
 * name plus two, and the gaps are filled with tabs every 8 columns.
 */
export function columns(names: readonly string[], lineWidth: number): string {
  const n = names.length;
  const widths = names.map(displayWidth);
  const minColumnWidth = 3;
  const maxCols = Math.max(1, Math.min(Math.floor(lineWidth / minColumnWidth), n));
  let best = 1;
  let bestWidths: number[] = [Math.max(...widths)];
  for (let cols = maxCols; cols >= 1; cols--) {
    const rows = Math.ceil(n / cols);
    const colWidths = new Array<number>(cols).fill(minColumnWidth);
    let lineLen = cols * minColumnWidth;
    let fits = true;
    for (let i = 0; i < n; i++) {
      const idx = Math.floor(i / rows);
      const real = widths[i]! + (idx === cols - 1 ? 0 : 2);
      if (colWidths[idx]! < real) {
        lineLen += real - colWidths[idx]!;
        colWidths[idx] = real;
        if (lineLen >= lineWidth) {
          fits = false;
          break;
        }
      }
    }
    if (fits || cols === 1) {
      best = cols;
      bestWidths = colWidths;
      break;
    }
  }
  const rows = Math.ceil(n / best);
  let out = '';
  for (let row = 0; row < rows; row++) {
    let pos = 0;
    let col = 0;
    for (let i = row; i < n; i += rows) {
      out += names[i];
      const width = bestWidths[col++]!;
      if (i + rows >= n) break;
      out += indent(pos + widths[i]!, pos + width);
      pos += width;
    }
    out += '\n';
  }
  return out;
}

/** Blanks from column `from` to `to`: tabs to each tab stop, then spaces. */
function indent(from: number, to: number): string {
  let out = '';
  while (from < to) {
    if (Math.floor(to / 8) > Math.floor((from + 1) / 8)) {
      out += '\t';
      from += 8 - (from % 8);
    } else {
      out += ' ';
      from++;
    }
  }
  return out;
}

function displayWidth(s: string): number {
  return bytesToUtf8(s).length;
}
