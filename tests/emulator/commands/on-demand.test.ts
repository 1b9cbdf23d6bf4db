import { describe, expect, it } from 'vitest';
import { ALL_HANDLERS } from '../../../emulator/commands/index.js';
import { isOnDemandCommand, ON_DEMAND_COMMANDS, onDemandHandlersLoaded } from '../../../emulator/commands/on-demand.js';
import { commandFacts } from '../../../emulator/server/command-table.js';

describe('the commands whose code loads on demand', () => {
  it('are commands Redis has, in every server table, and their code is loaded in the tests', () => {
    for (const name of ON_DEMAND_COMMANDS) {
      expect(commandFacts(name), name).toBeDefined();
      expect(ALL_HANDLERS[name], name).toBeDefined();
    }
    expect(onDemandHandlersLoaded()).toBe(true);
  });

  it('are recognised in any case, a container by its subcommand', () => {
    expect(isOnDemandCommand(['Sort', 'k'])).toBe(true);
    expect(isOnDemandCommand(['debug', 'object', 'k'])).toBe(true);
    expect(isOnDemandCommand(['COMMAND', 'DOCS', 'get'])).toBe(true);
    expect(isOnDemandCommand(['memory', 'USAGE', 'k'])).toBe(true);
    expect(isOnDemandCommand(['object', 'encoding', 'k'])).toBe(true);
    expect(isOnDemandCommand(['COMMAND', 'INFO', 'get'])).toBe(false);
    expect(isOnDemandCommand(['COMMAND'])).toBe(false);
    expect(isOnDemandCommand(['set', 'a', '1'])).toBe(false);
    expect(isOnDemandCommand([])).toBe(false);
  });
});
