/**
 * `npm run server -- [redis-server arguments]`: runs the emulator's server
 * from its bundle (scripts/node-bundle.mjs), rebuilt only when a source
 * file changed, so that it answers PING within a fraction of a second: its
 * CommonJS form, through V8's code cache (runCached).
 */
import { runCached } from './node-bundle.mjs';

await runCached('server');
