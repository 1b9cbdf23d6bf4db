/**
 * The things a `happened` check can ask about, by name. The schema needs
 * only the names; what each one is in the world and how the learner is
 * told about it live in happenings.ts.
 */
export const HAPPENINGS = [
  'power-loss',
  'power-on',
  'kill',
  'crash',
  'shutdown',
  'start',
  'fork',
  'snapshot',
  'bgsave',
  'save-rule',
  'aof-rewrite',
  'fsync',
  'torn-write',
  'flip-byte',
  'full-resync',
  'shared-snapshot',
  'replica-synced',
  'partial-resync',
  'link-timeout',
  'promoted',
] as const;

export type Happening = (typeof HAPPENINGS)[number];
