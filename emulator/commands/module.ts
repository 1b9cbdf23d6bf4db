import { errorReply, type Reply } from '../resp/reply.js';
import type { Client } from '../server/client.js';
import type { Handler } from '../server/command-table.js';
import { cString } from '../numbers/c-string.js';
import { opt } from './args.js';
import { helpReply } from './command-help.js';

/**
 * MODULE on a server that can load no module (src/module.c moduleCommand):
 * the list is empty, every load fails as a dlopen() that finds no library
 * does, with Redis's reply and a log line, and an unload finds no module
 * of that name. The command is refused unless enable-module-command allows
 * it, as DEBUG is (the dispatcher's protected check).
 */
const LOAD_FAILED = 'Error loading the extension. Please check the server logs.';

function failedLoad(c: Client, path: string): Reply {
  c.server.log(`Module ${cString(path)} failed to load: ${cString(path)}: this server cannot load modules`, 'warning');
  return errorReply(LOAD_FAILED);
}

function load(c: Client, argv: string[]): Reply {
  return failedLoad(c, argv[2]!);
}

/** LOADEX: its CONFIG name value pairs and ARGS are read (parseLoadexArguments) before the load is tried. */
function loadex(c: Client, argv: string[]): Reply {
  for (let i = 3; i < argv.length; ) {
    const word = opt(argv[i]!);
    if (word === 'config') {
      if (i + 2 >= argv.length) {
        c.server.log('CONFIG specified without name value pair', 'notice');
        return errorReply(LOAD_FAILED);
      }
      i += 3;
    } else if (word === 'args') break;
    else {
      c.server.log(`Syntax Error from arguments to loadex around ${cString(argv[i]!)}.`, 'notice');
      return errorReply(LOAD_FAILED);
    }
  }
  return failedLoad(c, argv[2]!);
}

function unload(): Reply {
  return errorReply('Error unloading module: no such module with that name');
}

function list(): Reply {
  return [];
}

const HELP_LINES = [
  'LIST',
  '    Name the modules loaded, with their versions.',
  'LOAD <path> [<arg> ...]',
  '    Load the module library at <path>, giving it the arguments.',
  'LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]',
  '    Load the module library at <path> with module configurations and arguments.',
  'UNLOAD <name>',
  '    Unload the module of that name.',
];

function help(_c: Client, argv: string[]): Reply {
  return helpReply(argv[0]!, HELP_LINES);
}

export const moduleCommands: Record<string, Handler> = {
  'module|list': list,
  'module|load': load,
  'module|loadex': loadex,
  'module|unload': unload,
  'module|help': help,
};
