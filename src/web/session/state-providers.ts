/**
 * Parts of the page that keep state of their own beside the world and the
 * terminals (the lesson runner's progress, a code cell's source...) save
 * it with the session through a named provider: `save()` returns plain
 * JSON-safe data, `restore(data)` takes it back after a reload or an
 * import, `reset()` forgets it when the learner starts over. A provider
 * calls `changed()` when its state changes, so the session is saved soon.
 *
 *   const off = stateProviders.register({
 *     key: 'lesson-progress',
 *     save: () => runner.progress(),
 *     restore: (data) => runner.restoreProgress(data),
 *   });
 *   runner.onProgress(() => stateProviders.changed());
 */
export interface StateProvider {
  /** A name unique on the page; the saved data is filed under it. */
  readonly key: string;
  save(): unknown;
  /** Data this provider saved earlier, as JSON gave it back: check it before use. */
  restore(data: unknown): void;
  /** Forget everything (the learner resets the sandbox). */
  reset?(): void;
}

export class StateProviders {
  private readonly providers = new Map<string, StateProvider>();
  private readonly listeners = new Set<() => void>();
  /** Data saved for keys no provider has claimed yet: given to the provider when it registers. */
  private waiting = new Map<string, unknown>();

  /** Adds a provider; a saved state for its key that came before it is restored at once. Returns the unregister. */
  register(provider: StateProvider): () => void {
    if (this.providers.has(provider.key)) throw new Error(`a state provider named ${provider.key} is already registered`);
    this.providers.set(provider.key, provider);
    if (this.waiting.has(provider.key)) {
      const data = this.waiting.get(provider.key);
      this.waiting.delete(provider.key);
      provider.restore(data);
    }
    return () => {
      if (this.providers.get(provider.key) === provider) this.providers.delete(provider.key);
    };
  }

  /** Every provider's state, by key, plus what was restored for providers not registered yet. */
  saveAll(): Record<string, unknown> {
    const out: Record<string, unknown> = Object.fromEntries(this.waiting);
    for (const [key, p] of this.providers) out[key] = p.save();
    return out;
  }

  /** Gives each provider its saved state; keys without a provider wait for one to register. */
  restoreAll(data: Record<string, unknown>): { failed: string[] } {
    this.waiting = new Map();
    const failed: string[] = [];
    for (const [key, value] of Object.entries(data)) {
      const p = this.providers.get(key);
      if (p === undefined) {
        this.waiting.set(key, value);
        continue;
      }
      try {
        p.restore(value);
      } catch {
        failed.push(key);
      }
    }
    return { failed };
  }

  resetAll(): void {
    this.waiting = new Map();
    for (const p of this.providers.values()) p.reset?.();
  }

  /** A provider's state changed: the session will be saved soon. */
  changed(): void {
    for (const l of [...this.listeners]) l();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The page's providers. */
export const stateProviders = new StateProviders();
