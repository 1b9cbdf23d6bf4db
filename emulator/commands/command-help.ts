import { StatusReply, errorReply, type Reply } from '../resp/reply.js';
import { asciiUpper } from '../resp/bytes.js';
import { cString } from '../numbers/c-string.js';

/**
 * The shape Redis gives every HELP subcommand (src/networking.c
 * addReplyHelp): a header naming the command as typed, in upper case, the
 * command's own lines, then HELP itself. The wording of the lines is ours.
 */
export function helpReply(typedName: string, lines: readonly string[]): Reply {
  const out: Reply[] = [new StatusReply(`${asciiUpper(cString(typedName))} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:`)];
  for (const l of lines) out.push(new StatusReply(l));
  out.push(new StatusReply('HELP'), new StatusReply('    Print this help.'));
  return out;
}

/** addReplySubcommandSyntaxError: an unknown subcommand or a wrong number of arguments. */
export function subcommandSyntaxError(argv: readonly string[]): Reply {
  const sub = cString(argv[1] ?? '');
  return errorReply(
    `unknown subcommand or wrong number of arguments for '${sub.slice(0, 128)}'. Try ${asciiUpper(cString(argv[0]!))} HELP.`,
  );
}

