/**
 * The layers of the house (docs/architecture.md), held by dependency-cruiser
 * in `npm run lint`. Only value imports count (tsPreCompilationDeps: false):
 * a type-only import compiles away, and shared types may be read from any
 * layer that holds them.
 *
 * Layers of emulator/, lowest first. A folder may import its own layer and
 * the ones below it, never one above.
 */
const LAYERS = [
  'numbers', // C number parsing and formatting, C strings
  'sim', // the stand-ins: kernel, clock, random, hosts, disks, network, trace
  'resp', // RESP values, encoder, parsers
  'keyspace', // databases, values, expiry, WATCH, SCAN
  'server', // one server: config, dispatcher, clients, INFO, memory model
  'persistence', // rdb/ and aof/ file formats, the engines, check/
  'replication', // shared state, primary part, replica part
  'commands', // one file per command group
  'process', // a redis-server process: loop, connections, services contract
  'client-library', // the in-process client of a server
  'world', // hosts and processes together, actions as data
  'sentinel', // redis-sentinel: monitoring, failover, its commands and config
  'redis-cli', // redis-cli: REPL, formatting, hints
  'programs', // what runs on a simulated host: shell, benchmark, checkers' mains
  'scenarios', // the book's measurements
];

/**
 * Upward imports that remain, each as [from, to] with the reason it is
 * still there. None remain: a new upward import fails lint. (The server's
 * command table and replication state come from above it, through
 * emulator/process/create-server.ts.)
 */
const KNOWN_UPWARD = [];

/**
 * The door: src/ imports the emulator only through these modules, each a
 * documented API. emulator/index.ts is the server, RESP and the in-process
 * client; world/world.ts the world the page and the lessons drive;
 * persistence/inspect/ the file viewers; redis-cli/repl.ts the redis-cli a
 * terminal runs; commands/on-demand-handlers.ts the commands the page loads
 * after the first prompt (a dynamic import, its own chunk); resp/index.ts the
 * byte strings and command framing the page's light modules use;
 * world/sentinel-client.ts the Sentinel-following client code cells load on
 * first use (a dynamic import).
 */
const DOOR = [
  'emulator/index.ts',
  'emulator/world/world.ts',
  'emulator/persistence/inspect/index.ts',
  'emulator/commands/on-demand-handlers.ts',
  'emulator/redis-cli/repl.ts',
  'emulator/resp/index.ts',
  'emulator/world/sentinel-client.ts',
];

/**
 * Modules src/ still reaches past the door (the simulated hosts and disks the
 * page draws, the shell's parts, redis-cli's helpers). The list may only
 * shrink: a new one fails lint; export what src/ needs from a front instead.
 */
const KNOWN_PAST_THE_DOOR = [
  'emulator/client-library/command-names.ts',
  'emulator/client-library/reply-error.ts',
  'emulator/client-library/values.ts',
  'emulator/commands/command-keys.ts',
  'emulator/commands/on-demand.ts',
  'emulator/keyspace/database.ts',
  'emulator/keyspace/values.ts',
  'emulator/persistence/check/rdb/check.ts',
  'emulator/process/external-transport.ts',
  'emulator/process/outbound.ts',
  'emulator/process/redis-process.ts',
  'emulator/programs/host-setup.ts',
  'emulator/programs/redis-check-aof.ts',
  'emulator/programs/session-link.ts',
  'emulator/programs/shell.ts',
  'emulator/programs/shell/action.ts',
  'emulator/programs/shell/quoting.ts',
  'emulator/programs/shell/redis-server.ts',
  'emulator/programs/shell/sim-verbs.ts',
  'emulator/redis-cli/assist-data.ts',
  'emulator/redis-cli/completion.ts',
  'emulator/redis-cli/format.ts',
  'emulator/redis-cli/hints.ts',
  'emulator/redis-cli/link.ts',
  'emulator/redis-cli/shell-completion.ts',
  'emulator/server/command-line.ts',
  'emulator/server/info.ts',
  'emulator/sim/base64.ts',
  'emulator/sim/cpu.ts',
  'emulator/sim/disk-api.ts',
  'emulator/sim/disk-buffer.ts',
  'emulator/sim/disk-errors.ts',
  'emulator/sim/disk-path.ts',
  'emulator/sim/disk.ts',
  'emulator/sim/host.ts',
  'emulator/sim/kernel.ts',
  'emulator/sim/links.ts',
  'emulator/sim/network.ts',
  'emulator/sim/realtime.ts',
  'emulator/sim/trace.ts',
  'emulator/sim/wire.ts',
  'emulator/world/terminal-session.ts',
];

const exactly = (paths) => paths.map((p) => `^${p.replace(/[.]/g, '\\.')}$`);

const layerOf = (name) => `^emulator/${name}/`;

const upwardRules = LAYERS.map((name, i) => {
  const above = LAYERS.slice(i + 1);
  if (above.length === 0) return null;
  const known = KNOWN_UPWARD.filter(([from]) => new RegExp(from).test(`emulator/${name}/x.ts`) || from.startsWith(`^emulator/${name}/`));
  return {
    name: `layer-${name}`,
    comment: `emulator/${name}/ imports only from its own layer and those below it (${LAYERS.slice(0, i).join(', ') || 'none'}).`,
    severity: 'error',
    from: { path: layerOf(name), pathNot: known.map(([from]) => from) },
    to: { path: `^emulator/(${above.join('|')})/` },
  };
}).filter(Boolean);

const knownRules = KNOWN_UPWARD.map(([from, allowed], i) => {
  const folder = from.match(/^\^emulator\/([^/]+)\//)[1];
  const above = LAYERS.slice(LAYERS.indexOf(folder) + 1);
  return {
    name: `layer-known-${i + 1}`,
    comment: `Only the upward import listed for ${from} (see KNOWN_UPWARD).`,
    severity: 'error',
    from: { path: from },
    to: { path: `^emulator/(${above.join('|')})/`, pathNot: allowed },
  };
});

module.exports = {
  forbidden: [
    ...upwardRules,
    ...knownRules,
    {
      name: 'no-folder-cycle',
      comment: 'No cycle of value imports between folders of emulator/ (a cycle inside one folder is that folder\'s business).',
      severity: 'error',
      from: { path: '^emulator/([^/]+)/' },
      to: {
        circular: true,
        // some module of the cycle lies outside the folder.
        via: { pathNot: '^emulator/$1/' },
      },
    },
    {
      name: 'src-through-the-door',
      comment: 'src/ imports emulator/ only through the door (DOOR) or a module on the shrinking list KNOWN_PAST_THE_DOOR.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^emulator/', pathNot: exactly([...DOOR, ...KNOWN_PAST_THE_DOOR]) },
    },
    {
      name: 'emulator-stays-inside',
      comment: 'emulator/ runs in a simulated world: nothing from src/, no Node built-ins, no UI.',
      severity: 'error',
      from: { path: '^emulator/' },
      to: { path: ['^src/', '^(react|react-dom|@xterm)(/|$)'] },
    },
    {
      name: 'emulator-no-node',
      severity: 'error',
      from: { path: '^emulator/' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    // Type-only imports compile away: the rules see value imports only.
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
    cache: { folder: 'node_modules/.cache/dependency-cruiser', strategy: 'content' },
  },
};
