import { HOST_PROFILES, LINK_PROFILES } from '../../../emulator/sim/index.js';
import type { RecordedAction } from '../../../emulator/world/world.js';

/**
 * A sandbox session written out as a lesson draft: the front matter
 * describes the world the session started (its hosts, links, servers and
 * the terminals used), and each group of commands typed becomes a step
 * with a block that types them, a check that they ran, and the same
 * lines as its solution. An author writes the prose and sharper checks
 * over it; the draft already reads as a lesson (lessons/README.md).
 * Loaded when the learner asks for a draft, never with the page.
 */

/** The file a draft is offered as: lesson files are named NN-<id>.md. */
export const DRAFT_FILE = '99-sandbox-draft.md';

/** Typed lines further apart than this, in virtual time, start a new step. */
const STEP_GAP_US = 10_000_000;
/** At most this many lines in one step, so a step stays one idea. */
const STEP_LINES = 6;

/** Programs a shell line runs that a `ran:` check can see (a shell's own builtins leave no trace). */
const PROGRAMS = new Set(['redis-cli', 'redis-server', 'redis-benchmark', 'redis-check-aof', 'redis-check-rdb', 'redis-sentinel']);

interface Terminal {
  readonly name: string;
  readonly kind: 'redis-cli' | 'shell';
  /** redis-cli: the host it runs from and the server (HOST:PORT); shell: the host. */
  readonly from: string;
  readonly server: string;
}

interface Typed {
  readonly terminal: Terminal;
  readonly t: number;
  readonly line: string;
  /** What a check can see of it: the command's name, or the program a shell line runs; null: nothing. */
  readonly check: { kind: 'command' | 'ran'; what: string; on: string } | null;
}

/** The draft's Markdown, or null when nothing was typed to make a step of. */
export function lessonDraft(actions: readonly RecordedAction[], seed: number): string | null {
  const hosts: Array<{ name: string; profile: string }> = [];
  const links: Array<{ a: string; b: string; profile: string }> = [];
  const servers: Array<{ host: string; port: number; config: Record<string, string> }> = [];
  const sessions = new Map<string, Terminal>();
  const terminals: Terminal[] = [];
  const typed: Typed[] = [];
  const terminalFor = (kind: Terminal['kind'], from: string, server: string): Terminal => {
    let t = terminals.find((x) => x.kind === kind && x.from === from && x.server === server);
    if (t === undefined) {
      const base = kind === 'redis-cli' ? 'redis-cli' : `shell-${from}`;
      const same = terminals.filter((x) => x.name === base || x.name.startsWith(`${base}-`)).length;
      t = { name: same === 0 ? base : `${base}-${same + 1}`, kind, from, server };
      terminals.push(t);
    }
    return t;
  };

  for (const { t, action: a } of actions) {
    if (a.kind === 'addHost') hosts.push({ name: a.name, profile: typeof a.profile === 'string' && a.profile in HOST_PROFILES ? a.profile : 'metal' });
    else if (a.kind === 'link') links.push({ a: a.a, b: a.b, profile: typeof a.profile === 'string' && a.profile in LINK_PROFILES ? a.profile : 'lan' });
    else if ((a.kind === 'spawn' && a.program === 'redis-server') || a.kind === 'startRedis') {
      const opts = (a.opts ?? {}) as { port?: unknown; config?: Record<string, unknown> };
      const port = typeof opts.port === 'number' ? opts.port : 6379;
      // The Debian package's directory is every lesson server's already.
      const config = Object.fromEntries(Object.entries(opts.config ?? {}).filter(([k, v]) => k !== 'dir' && typeof v === 'string')) as Record<string, string>;
      if (!servers.some((s) => s.host === a.host && s.port === port)) servers.push({ host: a.host, port, config });
    } else if (a.kind === 'openSession') {
      sessions.set(a.id, terminalFor('redis-cli', a.from, a.to));
    } else if (a.kind === 'send') {
      const terminal = sessions.get(a.id);
      if (terminal !== undefined && a.argv.length > 0) typed.push({ terminal, t, line: cliLine(a.argv), check: { kind: 'command', what: a.argv[0]!.toUpperCase(), on: terminal.server } });
    } else if (a.kind === 'program' && a.name === 'host-shell') {
      const args = a.args as { op?: unknown; id?: unknown; host?: unknown; line?: unknown };
      if (args.op === 'open' && typeof args.id === 'string' && typeof args.host === 'string') sessions.set(args.id, terminalFor('shell', args.host, args.host));
      const terminal = typeof args.id === 'string' ? sessions.get(args.id) : undefined;
      if (args.op === 'line' && terminal !== undefined && typeof args.line === 'string' && args.line.trim() !== '' && !/[\x00-\x1f]/.test(args.line)) {
        const program = args.line.trim().split(/\s+/)[0]!;
        typed.push({ terminal, t, line: args.line.trim(), check: PROGRAMS.has(program) ? { kind: 'ran', what: program, on: terminal.from } : null });
      }
    }
  }

  const steps = groupSteps(typed);
  if (steps.length === 0) return null;
  const used = terminals.filter((t) => typed.some((x) => x.terminal === t));
  const front = [
    '---',
    'id: sandbox-draft',
    'number: 99',
    'section: ""',
    'title: A lesson drafted in the sandbox',
    'summary: "Say in one sentence what the learner does and finds out."',
    'world:',
    `  seed: ${seed}`,
    '  hosts:',
    ...hosts.map((h) => `    - { name: ${h.name}, profile: ${h.profile} }`),
    ...(links.length === 0 ? [] : ['  links:', ...links.map((l) => `    - { a: ${l.a}, b: ${l.b}, profile: ${l.profile} }`)]),
    ...(servers.length === 0 ? [] : ['  servers:', ...servers.map((s) => `    - { host: ${s.host}, port: ${s.port}${Object.keys(s.config).length === 0 ? '' : `, config: ${JSON.stringify(s.config)}`} }`)]),
    '  terminals:',
    ...used.map((t) => (t.kind === 'redis-cli' ? `    - { name: ${t.name}, kind: redis-cli, from: ${t.from}, server: ${JSON.stringify(t.server)} }` : `    - { name: ${t.name}, kind: shell, host: ${t.from} }`)),
    '---',
    '',
    'What this lesson is about, and what the learner will see, in your words.',
    '',
  ];
  return [...front, ...steps.flatMap((s, i) => stepText(s, i))].join('\n');
}

/** Typed lines in steps: a step ends where the terminal changes, after a pause, or when it is long; a step with nothing to check joins the one before. */
function groupSteps(typed: readonly Typed[]): Typed[][] {
  const groups: Typed[][] = [];
  for (const x of typed) {
    const g = groups[groups.length - 1];
    const last = g?.[g.length - 1];
    if (g !== undefined && last !== undefined && last.terminal === x.terminal && x.t - last.t < STEP_GAP_US && g.length < STEP_LINES) g.push(x);
    else groups.push([x]);
  }
  const steps: Typed[][] = [];
  for (const g of groups) {
    if (g.some((x) => x.check !== null) || steps.length === 0) steps.push([...g]);
    else steps[steps.length - 1]!.push(...g);
  }
  // A first step with nothing to check joins the next one.
  if (steps.length > 1 && !steps[0]!.some((x) => x.check !== null)) steps.splice(0, 2, [...steps[0]!, ...steps[1]!]);
  return steps.filter((s) => s.some((x) => x.check !== null));
}

function stepText(lines: readonly Typed[], i: number): string[] {
  const blocks: string[] = [];
  for (let k = 0; k < lines.length; ) {
    const t = lines[k]!.terminal;
    const run: string[] = [];
    while (k < lines.length && lines[k]!.terminal === t) run.push(lines[k++]!.line);
    blocks.push(`\`\`\`${t.kind === 'redis-cli' ? 'redis' : 'shell'} terminal=${t.name}`, ...run, '```', '');
  }
  const seen = new Set<string>();
  const checks: string[] = [];
  for (const x of lines) {
    const c = x.check;
    if (c === null || seen.has(`${c.kind} ${c.what} ${c.on}`)) continue;
    seen.add(`${c.kind} ${c.what} ${c.on}`);
    const label = `${c.what} ran on ${c.on}`;
    checks.push(`- ${c.kind}: ${JSON.stringify(c.what)}`, `  on: ${JSON.stringify(c.on)}`, `  label: ${JSON.stringify(label)}`, `  why-not: ${JSON.stringify('Run the lines above.')}`);
  }
  const names = [...new Set(lines.map((x) => x.check?.what).filter((w): w is string => w !== undefined))];
  return [
    `## Step: ${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''} (step ${i + 1})`,
    '',
    'What this step shows, in your words.',
    '',
    ...blocks,
    '```check',
    ...checks,
    '```',
    '',
    '```solution',
    ...lines.map((x) => `${x.terminal.name}> ${x.line}`),
    '```',
    '',
  ];
}

/** A command as a redis-cli line that splits back into the same arguments (sdssplitargs's quoting). */
export function cliLine(argv: readonly string[]): string {
  return argv.map(cliArg).join(' ');
}

function cliArg(arg: string): string {
  if (arg !== '' && /^[\x21-\x7e]+$/.test(arg) && !/["'\\]/.test(arg)) return arg;
  let out = '"';
  for (const ch of arg) {
    const c = ch.charCodeAt(0);
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c >= 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
