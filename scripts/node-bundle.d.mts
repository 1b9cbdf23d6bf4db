/** Types of scripts/node-bundle.mjs for the TypeScript that imports it (bench). */
export declare const ENTRIES: Record<string, string>;
export declare function ensureBundle(name: string): Promise<string>;
export declare function runBundle(name: string): Promise<void>;
export declare function runCached(name: string): Promise<void>;
export declare function loadWithCodeCache(file: string): { exports: Record<string, unknown>; cache: 'used' | 'rejected' | 'none'; keepCache(): void };
