/**
 * Paths on a simulated disk are absolute POSIX strings. They are resolved
 * lexically, the way the kernel resolves a path with no symbolic links:
 * empty components and '.' vanish, '..' removes the component before it, and
 * '..' at the root stays at the root ("/../etc" is "/etc").
 *
 *   normalizePath('/var//lib/./redis/../redis/') === '/var/lib/redis'
 */
export function normalizePath(path: string): string {
  return '/' + pathParts(path).join('/');
}

/** The components of an absolute path after normalization; [] for the root. */
export function pathParts(path: string): string[] {
  if (typeof path !== 'string' || path.charCodeAt(0) !== 47 /* '/' */) {
    throw new TypeError(`disk paths are absolute: ${JSON.stringify(path)}`);
  }
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts;
}
