/**
 * Code the page loads after it opens (a dynamic import), fetched once and
 * shared by every caller. A load that fails (the page went offline before
 * the file was cached) is tried again by the next call.
 */
export interface LoadOnce<T> {
  /** The module, loading it if need be. */
  load(): Promise<T>;
  /** The module if it has arrived, else null. */
  now(): T | null;
}

export function loadOnce<T>(importer: () => Promise<T>): LoadOnce<T> {
  let value: T | null = null;
  let loading: Promise<T> | null = null;
  return {
    load() {
      loading ??= importer().then(
        (v) => (value = v),
        (e: unknown) => {
          loading = null;
          throw e;
        },
      );
      return loading;
    },
    now: () => value,
  };
}
