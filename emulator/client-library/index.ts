/**
 * A front of the door: the client library's parts the code cells' sandbox
 * uses to speak for a learner's program: the command names a client offers
 * as methods and the error a failed command rejects with. It stays this
 * small because the sandbox's worker bundles what it imports (argToBytes is
 * in emulator/index.ts, for the page's side of the cells).
 */
export { COMMAND_NAMES } from './command-names.js';
export { ReplyError } from './reply-error.js';
