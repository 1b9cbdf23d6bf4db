/**
 * How a host shell is recorded in a world's action log: its program name
 * and its actions. Kept apart from the shell itself so that code reading
 * a log (to know which programs a replay needs) does not load the shell.
 */

/** The name the shell's actions are recorded under in a world's action log. */
export const SHELL_PROGRAM = 'host-shell';

export type ShellAction = { op: 'open'; id: string; host: string; columns: number } | { op: 'line'; id: string; line: string } | { op: 'interrupt'; id: string };
