/**
 * A front of the door, for the page's own recorded actions
 * (src/web/world-programs.ts): the name a shell's actions are recorded
 * under, and the helpers an upload's action uses (its bytes travel as
 * base64; its path is normalized as the kernel would). It stays this small
 * on purpose: that module is in the page's first load, which it would
 * otherwise make larger through the heavier fronts (programs/index.ts,
 * sim/index.ts) that it would evaluate early.
 */
export { SHELL_PROGRAM } from './shell/action.js';
export { decodeBase64 } from '../sim/base64.js';
export { normalizePath } from '../sim/disk-path.js';
