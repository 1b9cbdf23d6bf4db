import type { Command } from './context.js';
import { errnoText } from './errors.js';
import { sha256Hex } from '../../numbers/sha256.js';

/** sha256sum FILE...: "<digest>  <name>" per file; a file that cannot be read is an error line. */
export const sha256sum: Command = (ctx, args) => {
  const names = args.filter((a) => a !== '--');
  if (names.length === 0) {
    // Standard input is a terminal with nothing typed: the digest of nothing.
    ctx.out(`${sha256Hex(new Uint8Array(0))}  -\n`);
    return 0;
  }
  let status = 0;
  for (const name of names) {
    try {
      ctx.out(`${sha256Hex(ctx.host.disk.readFile(ctx.resolve(name)))}  ${name}\n`);
    } catch (e) {
      ctx.err(`sha256sum: ${name}: ${errnoText(e)}\n`);
      status = 1;
    }
  }
  return status;
};
