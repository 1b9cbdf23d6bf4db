import { bytesToUtf8, utf8ToBytes } from '../../../emulator/resp/index.js';
import {
  shellCommandNames,
  shellCompletion,
  simVerbNames,
  type DirEntry,
  type HostShell,
  type ShellView,
} from '../../../emulator/programs/shell-parts.js';
import { normalizePath } from '../../../emulator/sim/index.js';
import type { LineAssist } from './line-assist.js';

/** root's home directory, the one the shell's prompt shows as "~". */
const HOME = '/root';

/**
 * Tab completion in a host shell: command names, `sim` verbs, and the
 * files and directories on the machine's disk as the shell sees it now.
 * Completion only reads the disk (directory entries and their types).
 */
export function shellAssist(shell: HostShell): LineAssist {
  const programs = shellCommandNames();
  const verbs = simVerbNames();
  const view: ShellView = {
    get cwd() {
      return bytesToUtf8(shell.cwd);
    },
    home: HOME,
    programs,
    verbs: (program) => (program === 'sim' ? verbs : null),
    list: (path) => listDirectory(shell, path),
  };
  return {
    complete: (line, cursor) => ({ kind: 'word', ...shellCompletion(line, cursor, view) }),
    hint: () => null,
  };
}

function listDirectory(shell: HostShell, path: string): DirEntry[] | null {
  const host = shell.host;
  if (!host.powered) return null;
  const dir = normalizePath(utf8ToBytes(path));
  try {
    return host.disk.readdir(dir).map((name) => ({
      name: bytesToUtf8(name),
      directory: isDirectory(shell, dir === '/' ? `/${name}` : `${dir}/${name}`),
    }));
  } catch {
    return null;
  }
}

function isDirectory(shell: HostShell, path: string): boolean {
  try {
    return shell.host.disk.stat(path).isDirectory;
  } catch {
    return false;
  }
}
