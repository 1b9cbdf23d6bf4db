import { splitArgs } from '../resp/split-args.js';
import { findRegisteredFunctions, type RegisteredFunction } from './lua-registrations.js';
import { cString } from '../numbers/c-string.js';

/**
 * The function libraries of a server (src/functions.c): each library is
 * the source a client gave FUNCTION LOAD, or a file held, under the name
 * its shebang line gives. The emulator has no Lua engine, so a library is
 * kept and never run: its source goes back into every RDB file, AOF
 * rewrite and FUNCTION DUMP byte for byte, and the functions it registers
 * are read from the source where they are registered with literal names
 * (see lua-registrations.ts), for FUNCTION LIST and FUNCTION STATS.
 */

export interface FunctionLibrary {
  readonly name: string;
  /** The engine as registered ("LUA"): the shebang names it in any case. */
  readonly engine: string;
  /** The whole payload, shebang line included, as FUNCTION LOAD was given it. */
  readonly code: string;
  readonly functions: readonly RegisteredFunction[];
}

/** The engines Redis 7.0 registers (functionsInit: only Lua). */
const ENGINES = ['LUA'];

/** functionsVerifyName: letters, digits and underscores, at least one. */
export function validFunctionName(name: string): boolean {
  return /^[A-Za-z0-9_]+$/.test(name);
}

const BAD_LIBRARY_NAME =
  'Library names can only contain letters, numbers, or underscores(_) and must be at least one character long';

/**
 * functionExtractLibMetaData: the engine and name from the payload's
 * first line ("#!lua name=mylib"), or Redis's error text.
 */
function parseMetadata(code: string): { engine: string; name: string } | string {
  if (!code.startsWith('#!')) return 'Missing library metadata';
  const nl = code.indexOf('\n');
  if (nl < 0) return 'Invalid library metadata';
  const parts = splitArgs(cString(code.slice(0, nl)));
  if (parts === null || parts.length === 0) return 'Invalid library metadata';
  const engine = parts[0]!.slice(2);
  let name: string | null = null;
  for (const part of parts.slice(1)) {
    if (part.slice(0, 5).toLowerCase() === 'name=') {
      if (name !== null) return 'Invalid metadata value, name argument was given multiple times';
      name = part.slice(5);
      continue;
    }
    return `Invalid metadata value given: ${cString(part)}`;
  }
  if (name === null) return 'Library name was not given';
  return { engine, name };
}

export class FunctionLibraries {
  /** By library name, in the order they were made. */
  private readonly libraries = new Map<string, FunctionLibrary>();
  /** Function name -> its library, across all libraries (names are unique server-wide). */
  private readonly functionOwners = new Map<string, string>();

  get size(): number {
    return this.libraries.size;
  }

  get functionCount(): number {
    return this.functionOwners.size;
  }

  list(): FunctionLibrary[] {
    return [...this.libraries.values()];
  }

  /** The payloads in the order the libraries were made: what RDB files and rewrites carry. */
  codes(): string[] {
    const out: string[] = [];
    for (const l of this.libraries.values()) out.push(l.code);
    return out;
  }

  get(name: string): FunctionLibrary | undefined {
    return this.libraries.get(name);
  }

  /** The library a function belongs to. */
  libraryOf(functionName: string): FunctionLibrary | undefined {
    const lib = this.functionOwners.get(functionName);
    return lib === undefined ? undefined : this.libraries.get(lib);
  }

  /**
   * functionsCreateWithLibraryCtx: makes a library from its payload, or
   * says why not in Redis's words. `fromFile`: the payload comes from an
   * RDB file, an AOF or a DUMP payload a real server wrote; a library
   * whose registrations the source does not show literally is kept all the
   * same, since the engine that would find them is missing, not the
   * functions.
   */
  create(code: string, replace: boolean, fromFile: boolean): { name: string } | { error: string } {
    const md = parseMetadata(code);
    if (typeof md === 'string') return { error: md };
    if (!validFunctionName(md.name)) return { error: BAD_LIBRARY_NAME };
    const engine = ENGINES.find((e) => e === md.engine.toUpperCase());
    if (engine === undefined) return { error: `Engine '${cString(md.engine)}' not found` };
    const old = this.libraries.get(md.name);
    if (old !== undefined && !replace) return { error: `Library '${md.name}' already exists` };
    const functions = findRegisteredFunctions(code.slice(code.indexOf('\n')));
    if (functions.length === 0 && !fromFile && !code.includes('register_function')) return { error: 'No functions registered' };
    const seen = new Set<string>();
    for (const f of functions) {
      if (seen.has(f.name)) return { error: 'Function already exists in the library' };
      seen.add(f.name);
      const owner = this.functionOwners.get(f.name);
      if (owner !== undefined && owner !== md.name) return { error: `Function ${f.name} already exists` };
    }
    if (old !== undefined) this.unlink(old);
    this.link({ name: md.name, engine, code, functions });
    return { name: md.name };
  }

  /** FUNCTION DELETE: false when there is no such library. */
  delete(name: string): boolean {
    const lib = this.libraries.get(name);
    if (lib === undefined) return false;
    this.unlink(lib);
    return true;
  }

  clear(): void {
    this.libraries.clear();
    this.functionOwners.clear();
  }

  /**
   * libraryJoin: adds the libraries of `other`; on a name already here,
   * replaces it when `replace`, else fails with nothing changed; a function
   * name that would be in two libraries fails too.
   */
  join(other: FunctionLibraries, replace: boolean): string | null {
    for (const lib of other.libraries.values()) {
      if (this.libraries.has(lib.name) && !replace) return `Library ${lib.name} already exists`;
    }
    for (const lib of other.libraries.values()) {
      for (const f of lib.functions) {
        const owner = this.functionOwners.get(f.name);
        if (owner !== undefined && !(replace && other.libraries.has(owner))) return `Function ${f.name} already exists`;
      }
    }
    for (const lib of other.libraries.values()) {
      const old = this.libraries.get(lib.name);
      if (old !== undefined) this.unlink(old);
    }
    for (const lib of other.libraries.values()) this.link(lib);
    return null;
  }

  /** Takes over every library of `other` in place of its own (FUNCTION RESTORE FLUSH). */
  replaceWith(other: FunctionLibraries): void {
    this.clear();
    for (const lib of other.libraries.values()) this.link(lib);
  }

  private link(lib: FunctionLibrary): void {
    this.libraries.set(lib.name, lib);
    for (const f of lib.functions) this.functionOwners.set(f.name, lib.name);
  }

  private unlink(lib: FunctionLibrary): void {
    this.libraries.delete(lib.name);
    for (const f of lib.functions) this.functionOwners.delete(f.name);
  }
}
