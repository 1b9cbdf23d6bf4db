import { DiskError, STRERROR } from '../../sim/disk-errors.js';

/** The strerror() text of a file-system error, whatever disk raised it. */
export function errnoText(e: unknown): string {
  if (e instanceof DiskError) return e.message;
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && Object.prototype.hasOwnProperty.call(STRERROR, code)) return STRERROR[code as keyof typeof STRERROR];
  return e instanceof Error ? e.message : String(e);
}

/** The errno code of a file-system error, or null. */
export function errnoCode(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

/** coreutils' "missing operand" message. */
export function missingOperand(prog: string): string {
  return `${prog}: missing operand\nTry '${prog} --help' for more information.\n`;
}
