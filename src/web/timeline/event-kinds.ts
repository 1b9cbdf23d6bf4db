/** The colour class of an event's kind: faults stand out, the rest by what they touch. */
export function kindClass(kind: string): string {
  return `kind-${KIND_CLASSES[kind] ?? 'other'}`;
}

const KIND_CLASSES: Record<string, string> = {
  cmd: 'command',
  create: 'disk',
  rename: 'disk',
  unlink: 'disk',
  truncate: 'disk',
  mkdir: 'disk',
  rmdir: 'disk',
  fsync: 'disk',
  writeback: 'disk',
  upload: 'disk',
  spawn: 'process',
  exit: 'process',
  boot: 'process',
  'power-loss': 'fault',
  'torn-write': 'fault',
  kill: 'fault',
  eio: 'fault',
  enospc: 'fault',
  'disk-full': 'fault',
  'flip-byte': 'fault',
  fault: 'fault',
  reset: 'fault',
  partition: 'fault',
  connect: 'network',
  close: 'network',
  link: 'network',
  heal: 'network',
  log: 'log',
  repl: 'replication',
};
