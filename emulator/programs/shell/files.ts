import { bytesFromArray } from '../../resp/bytes.js';
import type { FileSystem } from '../../sim/disk-api.js';
import type { Command, CommandContext } from './context.js';
import { errnoCode, errnoText, missingOperand } from './errors.js';
import { getopt } from './options.js';
import { quoteArg } from './quoting.js';

/**
 * File commands from GNU coreutils 9.1 (cat, cp, rm, mkdir, rmdir, touch,
 * sync) and bash's pwd, on the host's simulated disk. What they write goes
 * to the page cache, as it does on Linux: it survives a killed process but
 * not a power cut until it is written back or synced.
 */

export const cat: Command = (ctx, args) => {
  const opts = getopt('cat', args, { flags: 'u' });
  if ('error' in opts) {
    ctx.err(opts.error);
    return 1;
  }
  let status = 0;
  for (const name of opts.operands) {
    try {
      const path = ctx.resolve(name);
      if (ctx.host.disk.stat(path).isDirectory) throw Object.assign(new Error('Is a directory'), { code: 'EISDIR' });
      ctx.out(bytesFromArray(ctx.host.disk.readFile(path)));
    } catch (e) {
      ctx.err(`cat: ${name}: ${errnoText(e)}\n`);
      status = 1;
    }
  }
  return status;
};

export const pwd: Command = (ctx) => {
  ctx.out(ctx.cwd + '\n');
  return 0;
};

export const mkdir: Command = (ctx, args) => {
  const opts = getopt('mkdir', args, { flags: 'pv', long: { parents: 'p', verbose: 'v' } });
  if ('error' in opts) {
    ctx.err(opts.error);
    return 1;
  }
  if (opts.operands.length === 0) {
    ctx.err(missingOperand('mkdir'));
    return 1;
  }
  let status = 0;
  for (const name of opts.operands) {
    try {
      ctx.host.disk.mkdir(ctx.resolve(name), { recursive: opts.flags.has('p') });
      if (opts.flags.has('v')) ctx.out(`mkdir: created directory ${quoteArg(name)}\n`);
    } catch (e) {
      ctx.err(`mkdir: cannot create directory ${quoteArg(name)}: ${errnoText(e)}\n`);
      status = 1;
    }
  }
  return status;
};

export const rmdir: Command = (ctx, args) => {
  const opts = getopt('rmdir', args, { flags: '' });
  if ('error' in opts) {
    ctx.err(opts.error);
    return 1;
  }
  if (opts.operands.length === 0) {
    ctx.err(missingOperand('rmdir'));
    return 1;
  }
  let status = 0;
  for (const name of opts.operands) {
    try {
      ctx.host.disk.rmdir(ctx.resolve(name));
    } catch (e) {
      ctx.err(`rmdir: failed to remove ${quoteArg(name)}: ${errnoText(e)}\n`);
      status = 1;
    }
  }
  return status;
};

export const touch: Command = (ctx, args) => {
  const opts = getopt('touch', args, { flags: 'c' });
  if ('error' in opts) {
    ctx.err(opts.error);
    return 1;
  }
  if (opts.operands.length === 0) {
    ctx.err(`touch: missing file operand\nTry 'touch --help' for more information.\n`);
    return 1;
  }
  let status = 0;
  for (const name of opts.operands) {
    const path = ctx.resolve(name);
    try {
      // The simulated disk keeps no access times and only writes move the
      // modification time, so touching a file that exists changes nothing.
      if (!ctx.host.disk.exists(path) && !opts.flags.has('c')) ctx.host.disk.appendFile(path, new Uint8Array(0));
    } catch (e) {
      ctx.err(`touch: cannot touch ${quoteArg(name)}: ${errnoText(e)}\n`);
      status = 1;
    }
  }
  return status;
};

export const rm: Command = (ctx, args) => {
  const opts = getopt('rm', args, { flags: 'frRvd', long: { force: 'f', recursive: 'r', verbose: 'v', dir: 'd' } });
  if ('error' in opts) {
    ctx.err(opts.error);
    return 1;
  }
  const force = opts.flags.has('f');
  const recursive = opts.flags.has('r') || opts.flags.has('R');
  if (opts.operands.length === 0) {
    if (force) return 0;
    ctx.err(missingOperand('rm'));
    return 1;
  }
  const disk = ctx.host.disk;
  let status = 0;
  for (const name of opts.operands) {
    const path = ctx.resolve(name);
    const last = name.replace(/\/+$/, '').split('/').pop();
    if (last === '.' || last === '..') {
      ctx.err(`rm: refusing to remove '.' or '..' directory: skipping ${quoteArg(name)}\n`);
      status = 1;
      continue;
    }
    if (path === '/' && recursive) {
      ctx.err(`rm: it is dangerous to operate recursively on '/'\nrm: use --no-preserve-root to override this failsafe\n`);
      status = 1;
      continue;
    }
    try {
      const st = disk.stat(path);
      if (st.isDirectory) {
        if (!recursive && !opts.flags.has('d')) {
          ctx.err(`rm: cannot remove ${quoteArg(name)}: Is a directory\n`);
          status = 1;
          continue;
        }
        if (recursive) removeTree(disk, path);
        else disk.rmdir(path);
      } else {
        disk.unlink(path);
      }
      if (opts.flags.has('v')) ctx.out(`removed ${st.isDirectory ? 'directory ' : ''}${quoteArg(name)}\n`);
    } catch (e) {
      if (force && errnoCode(e) === 'ENOENT') continue;
      ctx.err(`rm: cannot remove ${quoteArg(name)}: ${errnoText(e)}\n`);
      status = 1;
    }
  }
  return status;
};

function removeTree(disk: FileSystem, path: string): void {
  for (const name of disk.readdir(path)) {
    const child = join(path, name);
    if (disk.stat(child).isDirectory) removeTree(disk, child);
    else disk.unlink(child);
  }
  disk.rmdir(path);
}

export function join(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

export function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

export const cp: Command = (ctx, args) => {
  const opts = getopt('cp', args, { flags: 'rRfpav', long: { recursive: 'r', force: 'f', verbose: 'v', archive: 'a' } });
  if ('error' in opts) {
    ctx.err(opts.error);
    return 1;
  }
  const ops = opts.operands;
  if (ops.length === 0) {
    ctx.err(`cp: missing file operand\nTry 'cp --help' for more information.\n`);
    return 1;
  }
  if (ops.length === 1) {
    ctx.err(`cp: missing destination file operand after ${quoteArg(ops[0]!)}\nTry 'cp --help' for more information.\n`);
    return 1;
  }
  const recursive = opts.flags.has('r') || opts.flags.has('R') || opts.flags.has('a');
  const disk = ctx.host.disk;
  const dest = ops[ops.length - 1]!;
  const destPath = ctx.resolve(dest);
  const destIsDir = isDir(disk, destPath);
  const sources = ops.slice(0, -1);
  if (sources.length > 1 && !destIsDir) {
    ctx.err(`cp: target ${quoteArg(dest)} is not a directory\n`);
    return 1;
  }
  let status = 0;
  for (const src of sources) {
    const srcPath = ctx.resolve(src);
    const target = destIsDir ? join(destPath, baseName(srcPath)) : destPath;
    const shownTarget = destIsDir ? join(dest.replace(/\/+$/, '') || '/', baseName(src)) : dest;
    if (!disk.exists(srcPath)) {
      ctx.err(`cp: cannot stat ${quoteArg(src)}: No such file or directory\n`);
      status = 1;
      continue;
    }
    if (isDir(disk, srcPath)) {
      if (!recursive) {
        ctx.err(`cp: -r not specified; omitting directory ${quoteArg(src)}\n`);
        status = 1;
        continue;
      }
      if (target === srcPath || target.startsWith(srcPath + '/')) {
        ctx.err(`cp: cannot copy a directory, ${quoteArg(src)}, into itself, ${quoteArg(shownTarget)}\n`);
        status = 1;
        continue;
      }
      status = Math.max(status, copyTree(ctx, srcPath, target, shownTarget));
      continue;
    }
    if (target === srcPath) {
      ctx.err(`cp: ${quoteArg(src)} and ${quoteArg(shownTarget)} are the same file\n`);
      status = 1;
      continue;
    }
    status = Math.max(status, copyFile(ctx, srcPath, target, shownTarget));
    if (opts.flags.has('v')) ctx.out(`${quoteArg(src)} -> ${quoteArg(shownTarget)}\n`);
  }
  return status;
};

function isDir(disk: FileSystem, path: string): boolean {
  try {
    return disk.stat(path).isDirectory;
  } catch {
    return false;
  }
}

function copyFile(ctx: CommandContext, from: string, to: string, shownTarget: string): number {
  const disk = ctx.host.disk;
  const bytes = disk.readFile(from);
  if (isDir(disk, to)) {
    ctx.err(`cp: cannot overwrite directory ${quoteArg(shownTarget)} with non-directory\n`);
    return 1;
  }
  try {
    disk.writeFile(to, new Uint8Array(0));
  } catch (e) {
    ctx.err(`cp: cannot create regular file ${quoteArg(shownTarget)}: ${errnoText(e)}\n`);
    return 1;
  }
  try {
    disk.appendFile(to, bytes);
  } catch (e) {
    ctx.err(`cp: error writing ${quoteArg(shownTarget)}: ${errnoText(e)}\n`);
    return 1;
  }
  return 0;
}

function copyTree(ctx: CommandContext, from: string, to: string, shownTarget: string): number {
  const disk = ctx.host.disk;
  try {
    if (!isDir(disk, to)) disk.mkdir(to);
  } catch (e) {
    ctx.err(`cp: cannot create directory ${quoteArg(shownTarget)}: ${errnoText(e)}\n`);
    return 1;
  }
  let status = 0;
  for (const name of disk.readdir(from)) {
    const src = join(from, name);
    const dst = join(to, name);
    const shown = join(shownTarget, name);
    status = Math.max(status, isDir(disk, src) ? copyTree(ctx, src, dst, shown) : copyFile(ctx, src, dst, shown));
  }
  return status;
}

/**
 * sync: every file on the disk, and the directory tree, reaches stable
 * storage. It takes the device's time for each flush, so it runs in the
 * foreground until the last one completes.
 */
export const sync: Command = (ctx) => {
  const disk = ctx.host.disk;
  const paths: string[] = ['/'];
  const walk = (dir: string): void => {
    for (const name of disk.readdir(dir)) {
      const p = join(dir, name);
      if (isDir(disk, p)) walk(p);
      else paths.push(p);
    }
  };
  walk('/');
  const fds: number[] = [];
  let pending = 0;
  const job = ctx.foreground('sync', ['sync'], {
    onInterrupt: () => {
      // sync(2) cannot be interrupted; the flushes go on without it.
    },
    onKilled: () => fds.splice(0),
  });
  const done = (): void => {
    if (--pending !== 0 || !job.running) return;
    for (const fd of fds.splice(0)) {
      try {
        disk.close(fd);
      } catch {
        // Closed already by a crash.
      }
    }
    job.finish(0);
  };
  for (const p of paths) {
    try {
      const fd = disk.open(p, 'r', job.process.pid);
      fds.push(fd);
      pending++;
      disk.fsync(fd, done);
    } catch {
      // A file that vanished meanwhile has nothing to flush.
    }
  }
  if (pending === 0) job.finish(0);
  return 'job';
};
