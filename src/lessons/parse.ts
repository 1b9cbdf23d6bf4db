import MarkdownIt from 'markdown-it';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { parseEventLine } from './event-lines.js';
import type { Lesson, LessonStep, SolutionEntry, StepBlock } from './lesson.js';
import { CHECK_KINDS, checkSchema, frontMatter, parseServerRef, type Check, type FrontMatter } from './schema.js';

/**
 * Reads a lesson file: YAML front matter between `---` lines, then
 * Markdown. `## Step: <title>` headings start steps; fenced blocks with
 * these info strings are the lesson's structure, everything else is prose:
 *
 *   ```redis terminal=NAME     lines a "run this" button types into a redis-cli terminal
 *   ```shell terminal=NAME     the same, for a host shell terminal
 *   ```sim label="..."         scripted events (event-lines.ts)
 *   ```js cell id=ID from=HOST an editable code cell
 *   ```check                   a YAML list of checks (schema.ts)
 *   ```hint                    one hint, Markdown
 *   ```solution                the reference solution: "NAME> line", "sim> event", "cell> ID"
 *
 * Throws LessonFormatError listing every problem with its line number.
 */
export function parseLesson(text: string, file: string): Lesson {
  return new Parser(text, file).lesson();
}

export class LessonFormatError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file}: ${problems.length === 1 ? problems[0] : `${problems.length} problems:\n  ${problems.join('\n  ')}`}`);
    this.name = 'LessonFormatError';
  }
}

/** The names a solution line uses for what is not a terminal. */
const RESERVED = new Set(['sim', 'cell']);

/** The block kinds by the first word of a fence's info string. */
const STRUCTURAL = new Set(['redis', 'shell', 'sim', 'js', 'check', 'hint', 'solution']);

const md = new MarkdownIt({ html: false });

interface Fence {
  readonly lang: string;
  readonly attrs: Record<string, string>;
  readonly content: string;
  /** 1-based line of the opening fence in the file. */
  readonly line: number;
}

interface StepDraft {
  title: string;
  line: number;
  blocks: StepBlock[];
  checks: Check[];
  hints: string[];
  solution: SolutionEntry[];
}

class Parser {
  private readonly problems: string[] = [];
  private meta: FrontMatter | null = null;

  constructor(
    private readonly text: string,
    private readonly file: string,
  ) {}

  lesson(): Lesson {
    const normalized = this.text.replace(/\r\n?/g, '\n');
    const m = /^---\n([\s\S]*?)\n---[ \t]*(?:\n|$)/.exec(normalized);
    if (m === null) throw new LessonFormatError(this.file, ['a lesson file starts with YAML front matter between two "---" lines']);
    const bodyLine = m[1]!.split('\n').length + 3;
    this.meta = this.readFrontMatter(m[1]!);
    if (this.meta === null) throw new LessonFormatError(this.file, this.problems);
    const body = normalized.slice(m[0].length);
    const { intro, steps, outro } = this.readBody(body, bodyLine);
    if (steps.length === 0) this.problem(bodyLine, 'a lesson needs at least one "## Step: ..." heading');
    this.checkFileName();
    if (this.problems.length !== 0) throw new LessonFormatError(this.file, this.problems);
    return { file: this.file, meta: this.meta, intro, steps, outro };
  }

  private problem(line: number, text: string): void {
    this.problems.push(`line ${line}: ${text}`);
  }

  private readFrontMatter(yaml: string): FrontMatter | null {
    let data: unknown;
    try {
      data = parseYaml(yaml);
    } catch (e) {
      const at = e instanceof YAMLParseError && e.linePos ? e.linePos[0].line + 1 : 2;
      this.problem(at, `the front matter is not valid YAML: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
      return null;
    }
    const r = frontMatter.safeParse(data);
    if (!r.success) {
      for (const issue of r.error.issues) this.problems.push(`front matter: ${issuePath(issue.path)}${issue.message}`);
      return null;
    }
    this.checkWorld(r.data);
    return r.data;
  }

  /** Names in the world refer to each other: links and servers to hosts, terminals to servers. */
  private checkWorld(meta: FrontMatter): void {
    const w = meta.world;
    const hosts = new Set<string>();
    for (const h of w.hosts) {
      if (hosts.has(h.name)) this.problems.push(`front matter: world.hosts: ${h.name} is declared twice`);
      hosts.add(h.name);
    }
    const host = (where: string, h: string) => {
      if (!hosts.has(h)) this.problems.push(`front matter: ${where}: no host named ${h} in world.hosts`);
    };
    for (const l of w.links) {
      host('world.links', l.a);
      host('world.links', l.b);
    }
    const servers = new Set<string>();
    for (const s of w.servers) {
      host('world.servers', s.host);
      const key = `${s.host}:${s.port}`;
      if (servers.has(key)) this.problems.push(`front matter: world.servers: ${key} is declared twice`);
      servers.add(key);
    }
    const server = (where: string, ref: string) => {
      const { host: h, port } = parseServerRef(ref);
      if (!servers.has(`${h}:${port}`)) this.problems.push(`front matter: ${where}: no server ${h}:${port} in world.servers`);
    };
    for (const ref of Object.keys(w.data)) server('world.data', ref);
    const names = new Set<string>();
    for (const t of w.terminals) {
      if (names.has(t.name)) this.problems.push(`front matter: world.terminals: two terminals are named ${t.name}`);
      if (RESERVED.has(t.name)) this.problems.push(`front matter: world.terminals: "${t.name}" is reserved for solutions; pick another name`);
      names.add(t.name);
      if (t.kind === 'redis-cli') {
        host('world.terminals', t.from);
        server('world.terminals', t.server);
      } else {
        host('world.terminals', t.host);
      }
    }
  }

  private checkFileName(): void {
    const meta = this.meta!;
    const base = this.file.replace(/^.*\//, '');
    const expected = `${String(meta.number).padStart(2, '0')}-${meta.id}.md`;
    if (base !== expected) this.problems.push(`the file of lesson ${meta.number} "${meta.id}" is named ${expected}, not ${base}`);
  }

  private readBody(body: string, firstLine: number): { intro: string; steps: LessonStep[]; outro: string } {
    const lines = body.split('\n');
    const tokens = md.parse(body, {});
    const steps: StepDraft[] = [];
    let intro = '';
    let outro = '';
    let outroStarted = false;
    /** Source lines [from, to) not yet given to a block. */
    let proseFrom = 0;
    const flushProse = (to: number) => {
      const text = lines.slice(proseFrom, to).join('\n').trim();
      if (text !== '') {
        const step = steps[steps.length - 1];
        if (outroStarted) outro += (outro === '' ? '' : '\n\n') + text;
        else if (step === undefined) intro += (intro === '' ? '' : '\n\n') + text;
        else step.blocks.push({ kind: 'prose', markdown: text });
      }
    };
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (t.level !== 0 || t.map === null) continue;
      const [start, end] = t.map;
      if (t.type === 'heading_open' && t.tag === 'h2') {
        const title = tokens[i + 1]?.content ?? '';
        const step = /^Step:\s*(.+)$/.exec(title);
        if (step !== null) {
          flushProse(start);
          if (outroStarted) this.problem(firstLine + start, 'a step cannot follow the closing section');
          steps.push({ title: step[1]!.trim(), line: firstLine + start, blocks: [], checks: [], hints: [], solution: [] });
          proseFrom = end;
        } else if (steps.length !== 0 && !outroStarted) {
          // A heading that is not a step, after the steps: the closing section, heading included.
          flushProse(start);
          outroStarted = true;
          proseFrom = start;
        }
        continue;
      }
      if (t.type !== 'fence') continue;
      const fence = readFence(t.info, t.content, firstLine + start);
      if (!STRUCTURAL.has(fence.lang) || (fence.lang === 'js' && fence.attrs['cell'] === undefined)) continue;
      flushProse(start);
      proseFrom = end;
      const step = steps[steps.length - 1];
      if (step === undefined || outroStarted) {
        this.problem(fence.line, `a \`\`\`${fence.lang} block belongs inside a "## Step: ..." section`);
        continue;
      }
      this.readFence(step, fence);
    }
    flushProse(lines.length);
    for (const s of steps) {
      if (s.checks.length === 0) this.problem(s.line, `step "${s.title}" has no \`\`\`check block: every step says what done means`);
      if (s.solution.length === 0) this.problem(s.line, `step "${s.title}" has no \`\`\`solution block`);
    }
    return { intro, steps: steps.map(({ line: _line, ...s }) => s), outro };
  }

  private readFence(step: StepDraft, f: Fence): void {
    const meta = this.meta!;
    const lines = contentLines(f.content);
    switch (f.lang) {
      case 'redis':
      case 'shell': {
        const kind = f.lang === 'redis' ? 'redis-cli' : 'shell';
        const terminal = this.terminalFor(f, kind);
        if (terminal === null) return;
        if (lines.length === 0) this.problem(f.line, 'an empty run block');
        step.blocks.push({ kind: 'run', terminal, lines });
        return;
      }
      case 'sim': {
        lines.forEach((l, k) => this.eventLine(f.line + 1 + k, l));
        if (lines.length === 0) this.problem(f.line, 'an empty sim block');
        step.blocks.push({ kind: 'events', label: f.attrs['label'] ?? null, lines });
        return;
      }
      case 'js': {
        const id = f.attrs['cell']!;
        const from = f.attrs['from'];
        if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id)) this.problem(f.line, `a cell id is lower-case words joined by "-", not "${id}"`);
        if (from === undefined || !meta.world.hosts.some((h) => h.name === from)) {
          this.problem(f.line, `a code cell names the host it runs from: from=HOST, one of ${meta.world.hosts.map((h) => h.name).join(', ')}`);
          return;
        }
        step.blocks.push({ kind: 'cell', id, from, source: f.content.replace(/\n$/, '') });
        return;
      }
      case 'check':
        this.checks(step, f);
        return;
      case 'hint':
        if (f.content.trim() === '') this.problem(f.line, 'an empty hint');
        else step.hints.push(f.content.trim());
        return;
      case 'solution':
        lines.forEach((l, k) => this.solutionLine(step, f.line + 1 + k, l));
        return;
    }
  }

  /** The terminal a run block types into: named, or the only one of its kind. */
  private terminalFor(f: Fence, kind: 'redis-cli' | 'shell'): string | null {
    const terminals = this.meta!.world.terminals;
    const named = f.attrs['terminal'];
    if (named === undefined) {
      const ofKind = terminals.filter((t) => t.kind === kind);
      if (ofKind.length === 1) return ofKind[0]!.name;
      this.problem(f.line, `say which terminal this block types into: \`\`\`${f.lang} terminal=NAME`);
      return null;
    }
    const t = terminals.find((x) => x.name === named);
    if (t === undefined) {
      this.problem(f.line, `no terminal named ${named} in world.terminals`);
      return null;
    }
    if (t.kind !== kind) this.problem(f.line, `terminal ${named} is a ${t.kind} terminal; a \`\`\`${f.lang} block needs a ${kind} one`);
    return named;
  }

  private eventLine(line: number, text: string): boolean {
    try {
      parseEventLine(text, this.meta!.world);
      return true;
    } catch (e) {
      this.problem(line, (e as Error).message);
      return false;
    }
  }

  private checks(step: StepDraft, f: Fence): void {
    let data: unknown;
    try {
      data = parseYaml(f.content);
    } catch (e) {
      this.problem(f.line, `the check block is not valid YAML: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
      return;
    }
    if (!Array.isArray(data) || data.length === 0) {
      this.problem(f.line, 'a check block is a YAML list of checks ("- key: ...")');
      return;
    }
    data.forEach((item: unknown, k) => {
      const where = `check ${k + 1}`;
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        this.problem(f.line, `${where}: a check is a mapping such as "key: name"`);
        return;
      }
      const kinds = CHECK_KINDS.filter((c) => Object.prototype.hasOwnProperty.call(item, c));
      if (kinds.length !== 1) {
        this.problem(
          f.line,
          `${where}: ${kinds.length === 0 ? 'says nothing to check' : `mixes ${kinds.join(' and ')}`}: a check has exactly one of ${CHECK_KINDS.join(', ')}`,
        );
        return;
      }
      const r = checkSchema.safeParse({ kind: kinds[0], ...item });
      if (!r.success) {
        for (const issue of r.error.issues) this.problem(f.line, `${where} (${kinds[0]}): ${issuePath(issue.path)}${issue.message}`);
        return;
      }
      const problem = this.checkReferences(r.data);
      if (problem !== null) this.problem(f.line, `${where} (${kinds[0]}): ${problem}`);
      else step.checks.push(r.data);
    });
  }

  /** Hosts and terminals a check names exist; a pattern compiles. */
  private checkReferences(c: Check): string | null {
    const w = this.meta!.world;
    const host = (h: string) => (w.hosts.some((x) => x.name === h) ? null : `no host named ${h} in world.hosts`);
    const terminal = (n: string) => (w.terminals.some((x) => x.name === n) ? null : `no terminal named ${n} in world.terminals`);
    const regex = (p: string | undefined) => {
      if (p === undefined) return null;
      try {
        new RegExp(p);
        return null;
      } catch {
        return `"${p}" is not a regular expression`;
      }
    };
    switch (c.kind) {
      case 'key': {
        const looks = [c.kept, c.lost, c.at].filter((x) => x !== undefined).length;
        if (looks > 1) return 'a key check looks back to one moment at most: kept, lost or at';
        if (c.written === true && c.after !== undefined) return 'a key check counts its writes or waits for something to happen, not both: written or after';
        return host(parseServerRef(c.on).host) ?? (c['same-as'] ? host(parseServerRef(c['same-as'].on).host) : null);
      }
      case 'config':
      case 'happened':
      case 'command':
        return host(parseServerRef(c.on).host);
      case 'ran':
        return host(c.on);
      case 'info':
        return host(parseServerRef(c.on).host) ?? (c['same-as'] ? host(parseServerRef(c['same-as'].on).host) : null);
      case 'dbsize':
        return host(parseServerRef(c.dbsize).host);
      case 'server':
        return host(parseServerRef(c.server).host);
      case 'host':
        return host(c.host);
      case 'file':
        return host(c.on);
      case 'trace':
        return regex(c.text);
      case 'reply': {
        const t = w.terminals.find((x) => x.name === c.reply);
        if (t === undefined) return terminal(c.reply);
        return t.kind !== 'redis-cli' ? `${c.reply} is not a redis-cli terminal` : regex(c.matches);
      }
      case 'cell':
        return null;
      case 'ledger':
        if (c.cause !== undefined && c.ledger !== 'lost') return 'a ledger check names the cause of lost writes only: cause goes with ledger: lost';
        return c.on === undefined ? null : host(parseServerRef(c.on).host);
    }
  }

  private solutionLine(step: StepDraft, line: number, text: string): void {
    const m = /^([A-Za-z0-9][A-Za-z0-9_.-]*)> ?(.*)$/.exec(text);
    if (m === null) {
      this.problem(line, `a solution line is "TERMINAL> line", "sim> event" or "cell> ID", not "${text}"`);
      return;
    }
    const [, who, rest] = m as unknown as [string, string, string];
    if (who === 'sim') {
      if (this.eventLine(line, rest)) step.solution.push({ kind: 'event', line: rest });
      return;
    }
    if (who === 'cell') {
      if (!step.blocks.some((b) => b.kind === 'cell' && b.id === rest.trim())) this.problem(line, `no code cell "${rest.trim()}" in this step`);
      else step.solution.push({ kind: 'cell', id: rest.trim() });
      return;
    }
    if (!this.meta!.world.terminals.some((t) => t.name === who)) {
      this.problem(line, `no terminal named ${who} in world.terminals`);
      return;
    }
    step.solution.push({ kind: 'line', terminal: who, line: rest });
  }
}

/** The lines of a block, without blank ones and without `#` comments (YAML-like), trimmed. */
function contentLines(content: string): string[] {
  return content
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** "js cell id=x from=app" or 'sim label="Pull the plug"': the language and its attributes. */
function readFence(info: string, content: string, line: number): Fence {
  const trimmed = info.trim();
  const lang = /^\S*/.exec(trimmed)![0];
  const attrs: Record<string, string> = {};
  const rest = trimmed.slice(lang.length);
  const re = /([A-Za-z-]+)(?:=(?:"([^"]*)"|(\S+)))?/g;
  for (let m = re.exec(rest); m !== null; m = re.exec(rest)) {
    // "cell id=x": the word cell is a flag, its id the attribute id.
    if (m[1] === 'id') attrs['cell'] = m[2] ?? m[3] ?? '';
    else attrs[m[1]!] = m[2] ?? m[3] ?? '';
  }
  return { lang, attrs, content, line };
}

function issuePath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '' : `${path.map(String).join('.')}: `;
}
