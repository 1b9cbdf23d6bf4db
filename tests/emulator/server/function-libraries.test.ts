import { describe, expect, it } from 'vitest';
import { FunctionLibraries } from '../../../emulator/server/function-libraries.js';
import { findRegisteredFunctions } from '../../../emulator/server/lua-registrations.js';

describe('function libraries', () => {
  it('finds the functions a library registers with literal names, in both documented forms', () => {
    const src = `
      -- redis.register_function('commented', function() end)
      local s = "redis.register_function('quoted', f)"
      redis.register_function('plain', function(keys, args) return 1 end)
      redis.register_function{
        function_name = [[table]],
        callback = function() return 2 end,
        flags = { 'allow-stale', "no-writes", 'made-up' },
        description = 'it\\'s a "table"',
      }
      redis.register_function(name_in_a_variable, function() end)
    `;
    expect(findRegisteredFunctions(src)).toEqual([
      { name: 'plain', description: null, flags: [] },
      { name: 'table', description: `it's a "table"`, flags: ['no-writes', 'allow-stale'] },
    ]);
  });

  it('keeps a library from a file even when its registrations cannot be read without running it', () => {
    const libs = new FunctionLibraries();
    const code = '#!lua name=dyn\nfor _, n in ipairs({"a"}) do redis.register_function(n, function() end) end';
    expect(libs.create(code, false, true)).toEqual({ name: 'dyn' });
    expect(libs.codes()).toEqual([code]);
    expect(libs.create('#!lua name=none\nreturn 1', false, false)).toEqual({ error: 'No functions registered' });
  });

  it('refuses a function name another library holds, and replaces a library of the same name', () => {
    const libs = new FunctionLibraries();
    expect(libs.create("#!lua name=a\nredis.register_function('f', function() end)", false, false)).toEqual({ name: 'a' });
    expect(libs.create("#!lua name=b\nredis.register_function('f', function() end)", false, false)).toEqual({ error: 'Function f already exists' });
    expect(libs.create("#!lua name=a\nredis.register_function('g', function() end)", false, false)).toEqual({ error: "Library 'a' already exists" });
    expect(libs.create("#!lua name=a\nredis.register_function('g', function() end)", true, false)).toEqual({ name: 'a' });
    expect(libs.libraryOf('f')).toBeUndefined();
    expect(libs.libraryOf('g')!.name).toBe('a');
  });
});
