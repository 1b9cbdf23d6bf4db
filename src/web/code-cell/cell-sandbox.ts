import engineWasmUrl from '@jitl/quickjs-wasmfile-release-sync/wasm?url';
import workerUrl from './cell-worker.ts?worker&url';

/** The first message a cell's worker gets: its engine's WebAssembly code (cell-worker.ts). */
export interface EngineCode {
  readonly type: 'engine';
  readonly wasm: ArrayBuffer;
}

/**
 * Where code cells run: a Web Worker that no request can leave. A worker
 * loaded from its own URL has no Content-Security-Policy but what its
 * response's headers give (a static host gives none), so the page's policy
 * does not hold there; a worker made from a blob: URL takes the policy of
 * the document that makes it. The page therefore keeps a hidden frame,
 * public/cell-sandbox.html, whose policy allows no request at all (no
 * fetch, XMLHttpRequest, WebSocket, EventSource, remote script or module,
 * worker from a URL) but compiling code and loading the workbook's own
 * worker script, and makes each cell's worker in that frame's realm, from
 * a blob: URL whose only code loads the worker script. This holds alike
 * in the static build and under the dev server, which serves public/ as
 * it is.
 *
 * The worker runs the cell in an engine compiled to WebAssembly, which the
 * worker cannot fetch: the page fetches it from its own files the first
 * time a cell runs, keeps it, and gives each new worker a copy as its
 * first message.
 *
 *   const worker = await sandboxWorker();   // a Worker under the frame's policy, its engine on the way
 */
export async function sandboxWorker(): Promise<Worker> {
  const [frame, wasm] = await Promise.all([sandboxFrame(), engineCode()]);
  const realm = frame.contentWindow as (Window & typeof globalThis) | null;
  if (realm === null) throw new Error('the sandbox frame has no window');
  const script = new URL(workerUrl, document.baseURI).href;
  // The build's worker is one classic script; the dev server's is a module with imports.
  const module = import.meta.env.DEV;
  const boot = module ? `import ${JSON.stringify(script)};` : `importScripts(${JSON.stringify(script)});`;
  const url = realm.URL.createObjectURL(new realm.Blob([boot], { type: 'text/javascript' }));
  try {
    const worker = new realm.Worker(url, { type: module ? 'module' : 'classic', name: 'code-cell' });
    worker.postMessage({ type: 'engine', wasm: wasm.slice(0) } satisfies EngineCode);
    return worker;
  } finally {
    // The worker has its script's URL already; nothing else may use it.
    setTimeout(() => realm.URL.revokeObjectURL(url), 60_000);
  }
}

let enginePromise: Promise<ArrayBuffer> | null = null;

/** The engine's WebAssembly code, fetched on first use and kept for the page's life (a failed fetch is tried again next time). */
export function engineCode(): Promise<ArrayBuffer> {
  enginePromise ??= fetch(new URL(engineWasmUrl, document.baseURI).href)
    .then((r) => {
      if (!r.ok) throw new Error(`the cells' engine could not be loaded (${r.status})`);
      return r.arrayBuffer();
    })
    .catch((e: unknown) => {
      enginePromise = null;
      throw e instanceof Error ? e : new Error(String(e));
    });
  return enginePromise;
}

let modulePromise: Promise<WebAssembly.Module> | null = null;

/**
 * The engine's code compiled, once for the page's life: each engine on
 * the page's thread is made from it without compiling it again, and the
 * browser keeps the faster code it makes of the engine's busiest
 * functions as cells run.
 */
export function engineModule(): Promise<WebAssembly.Module> {
  modulePromise ??= engineCode()
    .then((wasm) => WebAssembly.compile(wasm))
    .catch((e: unknown) => {
      modulePromise = null;
      throw e instanceof Error ? e : new Error(String(e));
    });
  return modulePromise;
}

let framePromise: Promise<HTMLIFrameElement> | null = null;

/** The hidden frame holding the cells' policy, made on first use and kept for the page's life. */
function sandboxFrame(): Promise<HTMLIFrameElement> {
  framePromise ??= new Promise<HTMLIFrameElement>((resolve, reject) => {
    const frame = document.createElement('iframe');
    frame.src = new URL('cell-sandbox.html', document.baseURI).href;
    frame.hidden = true;
    frame.tabIndex = -1;
    frame.setAttribute('aria-hidden', 'true');
    frame.title = 'Code cell sandbox';
    frame.addEventListener('load', () => resolve(frame), { once: true });
    frame.addEventListener('error', () => reject(new Error('the sandbox frame could not be loaded')), { once: true });
    document.body.appendChild(frame);
  }).catch((e: unknown) => {
    framePromise = null;
    throw e;
  });
  return framePromise;
}

/**
 * A worker to use at once while it is still being made: messages wait for
 * it, listeners are added to it when it comes, and one ended before then
 * is ended as soon as it comes. A worker that cannot be made is reported
 * to the error listeners.
 */
export function deferredWorker(made: Promise<Worker>): Worker {
  let worker: Worker | null = null;
  let ended = false;
  const queued: unknown[] = [];
  const listeners: Array<[string, EventListener]> = [];
  made.then(
    (w) => {
      if (ended) {
        w.terminate();
        return;
      }
      worker = w;
      for (const [type, l] of listeners) w.addEventListener(type, inPageRealm(type, l));
      for (const m of queued.splice(0)) w.postMessage(m);
    },
    (e: unknown) => {
      if (ended) return;
      const failure = new ErrorEvent('error', { message: e instanceof Error ? e.message : String(e) });
      for (const [type, l] of listeners) if (type === 'error') l(failure);
    },
  );
  const stand = {
    postMessage(m: unknown) {
      if (worker !== null) worker.postMessage(m);
      else if (!ended) queued.push(m);
    },
    terminate() {
      ended = true;
      worker?.terminate();
    },
    addEventListener(type: string, l: EventListener) {
      listeners.push([type, l]);
      worker?.addEventListener(type, inPageRealm(type, l));
    },
  };
  return stand as unknown as Worker;
}

/**
 * A message listener that gets the message's data as the page's own
 * objects. A worker made in the sandbox frame delivers objects of the
 * frame's realm, whose Object.prototype and Uint8Array are not the page's:
 * the checks of what a cell sends (plain objects, bytes) would fail on them.
 */
function inPageRealm(type: string, l: EventListener): EventListener {
  if (type !== 'message') return l;
  return (e) => l(new MessageEvent('message', { data: structuredClone((e as MessageEvent).data) }));
}
