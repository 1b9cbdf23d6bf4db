import { SHADOWED_NAMES } from './cell-runtime.js';

/**
 * What a cell's worker removes from its global scope before any cell code
 * runs. The network is the sandbox's policy's to refuse (cell-sandbox.ts);
 * what no request policy covers goes here: storage shared with the page,
 * other workers, messages to other contexts, the real timers (cells get
 * virtual ones) and every way to make code from a string once the cell
 * itself has been compiled.
 */
export const REMOVED_GLOBALS: readonly string[] = [
  ...SHADOWED_NAMES,
  'eval',
  'Function',
  'close',
  'setTimeout',
  'setInterval',
  'clearTimeout',
  'clearInterval',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'RTCPeerConnection',
  'RTCDataChannel',
  'FileSystemHandle',
  'FileSystemDirectoryHandle',
  'FileSystemFileHandle',
  'StorageManager',
  'CacheStorage',
  'IDBFactory',
  'Notification',
  'ServiceWorker',
  'ServiceWorkerContainer',
];

/** Removes every `name` from the global object and its prototype chain. */
function remove(name: string): void {
  for (let o: object | null = globalThis; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    const d = Object.getOwnPropertyDescriptor(o, name);
    if (d === undefined) continue;
    if (d.configurable) delete (o as Record<string, unknown>)[name];
    else if (d.writable) (o as Record<string, unknown>)[name] = undefined;
  }
}

/** Makes `proto.constructor` unreachable: `(async () => {}).constructor('...')` would compile code. */
function hideConstructor(proto: object): void {
  Object.defineProperty(proto, 'constructor', { value: undefined, writable: false, configurable: false });
}

/**
 * Locks the worker down; returns the names that could not be removed (the
 * worker then refuses to run cells, rather than run them half open).
 */
export function lockDown(): string[] {
  for (const name of REMOVED_GLOBALS) remove(name);
  hideConstructor(Object.getPrototypeOf(function () {}) as object);
  hideConstructor(Object.getPrototypeOf(async function () {}) as object);
  hideConstructor(Object.getPrototypeOf(function* () {}) as object);
  hideConstructor(Object.getPrototypeOf(async function* () {}) as object);
  const g = globalThis as Record<string, unknown>;
  return REMOVED_GLOBALS.filter((name) => g[name] !== undefined);
}
