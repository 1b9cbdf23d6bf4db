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
 * documented API (see the comment at the top of each):
 * - emulator/index.ts: a server (createServer), RESP, the in-process client,
 *   command keys and redis.conf reading, for Node programs, lessons, cells;
 * - world/world.ts: the world the page and the lessons drive;
 * - sim/index.ts: hosts, links, disks, the realtime driver, the wire;
 * - process/index.ts: a redis-server process and its external transport;
 * - server/index.ts: what the page shows of a server (INFO, memory, values);
 * - client-library/index.ts: what the code cells' sandbox speaks with;
 * - redis-cli/repl.ts and redis-cli/index.ts: the redis-cli a terminal runs,
 *   its formatter, link, completion and hints;
 * - programs/index.ts: host setup, the session link, the shell's action name;
 * - programs/recorded-actions.ts: the few leaves the page's recorded actions
 *   use (src/web/world-programs.ts, early in the first load: through
 *   sim/index.ts or programs/index.ts the bundler splits that load into more
 *   chunks, 297.3 -> 300.9 KB gzipped, over the 300 KB budget);
 * - persistence/inspect/index.ts: the file viewers;
 * - resp/index.ts: the byte strings and command framing of the page's light
 *   modules.
 * Three are loaded on demand, each a chunk of its own that the page imports
 * dynamically: programs/shell-parts.ts (the host shell, what it runs, the
 * checkers), commands/on-demand-handlers.ts (the commands kept apart) and
 * redis-cli/assist-data.ts (redis-cli's help table). One is the small
 * registry the page's loader reads before it sends a command kept apart:
 * commands/on-demand.ts (the names, and whether their code has arrived).
 * sentinel/index.ts starts redis-sentinel (the Node entry in sentinel mode).
 * world/sentinel-client.ts is the Sentinel-following client that code cells
 * load on first use (a dynamic import); world/ack-ledger.ts the
 * acknowledged-writes ledger, loaded by lessons and the panel that show it.
 * A front that the page's first load imports re-exports only modules that
 * load is already made of, so it adds nothing to the initial JavaScript.
 */
const DOOR = [
  'emulator/index.ts',
  'emulator/world/world.ts',
  'emulator/sim/index.ts',
  'emulator/process/index.ts',
  'emulator/server/index.ts',
  'emulator/client-library/index.ts',
  'emulator/redis-cli/repl.ts',
  'emulator/redis-cli/index.ts',
  'emulator/programs/index.ts',
  'emulator/programs/recorded-actions.ts',
  'emulator/persistence/inspect/index.ts',
  'emulator/resp/index.ts',
  'emulator/sentinel/index.ts',
  'emulator/programs/shell-parts.ts',
  'emulator/commands/on-demand-handlers.ts',
  'emulator/redis-cli/assist-data.ts',
  'emulator/commands/on-demand.ts',
  'emulator/world/sentinel-client.ts',
  'emulator/world/sharded-client.ts',
  'emulator/world/ack-ledger.ts',
];

/**
 * Modules src/ still reaches past the door, each with why. None: a new one
 * fails lint; export what src/ needs from a front instead.
 */
const KNOWN_PAST_THE_DOOR = [];

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

/** A cycle of value imports from a module of `folder` (its first group) through some module outside it. */
const cycleRule = (name, comment, folder) => ({
  name,
  comment,
  severity: 'error',
  from: { path: folder },
  to: { circular: true, via: { pathNot: '^$1/' } },
});

module.exports = {
  forbidden: [
    ...upwardRules,
    ...knownRules,
    cycleRule(
      'no-folder-cycle',
      'No cycle of value imports between the folders of emulator/ or of src/ (a cycle inside one folder is that folder\'s business).',
      '^((emulator|src)/[^/]+)/',
    ),
    cycleRule(
      'no-subfolder-cycle',
      'No cycle of value imports between the subfolders of one folder either (persistence/rdb and persistence/check, src/web/cluster and src/web/disk): a subfolder is a part the rest of its folder builds on.',
      '^((emulator|src)/[^/]+/[^/]+)/',
    ),
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
