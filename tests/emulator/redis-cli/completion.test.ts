import { describe, expect, it } from 'vitest';
import { redisCliAssistData } from '../../../emulator/redis-cli/assist-data.js';
import { commandCompletions } from '../../../emulator/redis-cli/completion.js';
import realCompletions from './fixtures/redis-cli-completions.json' with { type: 'json' };

/*
 * fixtures/redis-cli-completions.json: for each line, the lines redis-cli
 * 7.0.15 (against redis-server 7.0.15) showed on each Tab until it beeped,
 * typed into it on a pseudo-terminal.
 */

describe('redis-cli Tab completion', () => {
  const table = redisCliAssistData().completion;

  it.each(Object.entries(realCompletions))('offers for %j the lines redis-cli 7.0 offers, in its order', (line, lines) => {
    expect(commandCompletions(line, table)).toEqual(lines);
  });

  it('completes parameter names after CONFIG GET and CONFIG SET', () => {
    expect(commandCompletions('config get maxmemory-p', table)).toEqual(['config get maxmemory-policy']);
    expect(commandCompletions('CONFIG GET appendf', table)).toEqual(['CONFIG GET appendfilename', 'CONFIG GET appendfsync']);
    expect(commandCompletions('CONFIG GET save appendo', table)).toEqual(['CONFIG GET save appendonly']);
    expect(commandCompletions('CONFIG SET APPENDO', table)).toEqual(['CONFIG SET APPENDONLY']);
  });

  it('completes the values of yes/no and enum parameters after CONFIG SET name', () => {
    expect(commandCompletions('CONFIG SET appendfsync ', table)).toEqual(['CONFIG SET appendfsync always', 'CONFIG SET appendfsync everysec', 'CONFIG SET appendfsync no']);
    expect(commandCompletions('CONFIG SET appendonly y', table)).toEqual(['CONFIG SET appendonly yes']);
    expect(commandCompletions('CONFIG SET appendonly yes appendfsync e', table)).toEqual(['CONFIG SET appendonly yes appendfsync everysec']);
    expect(commandCompletions('CONFIG SET maxmemory ', table)).toEqual([]);
  });

  it('offers no parameter after other commands, nor a hidden parameter', () => {
    expect(commandCompletions('GET maxm', table)).toEqual([]);
    expect(commandCompletions('CONFIG REWRITE a', table)).toEqual([]);
    expect(commandCompletions('config get key-load-delay', table)).toEqual([]);
  });
});
