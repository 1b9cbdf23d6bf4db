/**
 * npm run bench [-- inprocess|start|tcp|sim|memory|persistence|replication|web ...]
 *
 * `web` (the page's budgets in Chromium, bench/web.ts) runs only when asked for;
 * `web lesson16` runs only its lesson 16 benchmark.
 *
 * Every figure is measured beside its reference in the same run and printed
 * as a ratio: absolute numbers on a shared machine are noise, ratios are not.
 */
import { benchInProcess } from './inprocess.js';
import { printRows } from './measure.js';
import { explainShortRows, inProcessProfile, rdbLoadProfile, simProfile, tcpProfile } from './where.js';

const which = new Set(process.argv.slice(2));
const all = which.size === 0;

if (all || which.has('inprocess')) {
  printRows('In-process, one awaited call per command, per second of CPU time (emulator vs ioredis-mock)', await explainShortRows(await benchInProcess(3), inProcessProfile));
}
if (all || which.has('start')) {
  const { benchStart } = await import('./start.js');
  printRows('Start, process spawned to first PONG (wall-clock ms, lower is better)', await benchStart());
}
if (all || which.has('tcp')) {
  const { benchTcp } = await import('./tcp.js');
  printRows('TCP, redis-benchmark (emulator server vs redis-server)', await explainShortRows(await benchTcp(), tcpProfile));
}
if (all || which.has('sim')) {
  const { benchSim } = await import('./sim.js');
  printRows('Simulated world, redis-benchmark -c 50 -n 1000000 in virtual time (commands simulated per CPU second vs what lessons need)', await explainShortRows(benchSim(), simProfile));
}
if (all || which.has('replication')) {
  const { benchReplication } = await import('./replication.js');
  printRows('Replication in the simulated world (SETs simulated per CPU second; goals: two replicas cost at most 1.5x, a 1,000,000-key full sync over lan in 5 s of wall time)', benchReplication());
  const { benchReplicationTcp } = await import('./replication-tcp.js');
  printRows('Replication over TCP, redis-benchmark against a primary with a real replica (npm run server vs redis-server)', await benchReplicationTcp());
}
if (all || which.has('memory')) {
  const { benchMemory } = await import('./memory.js');
  printRows('Memory, 1,000,000 keys key:N with 10-byte values (JS heap growth vs used_memory)', await benchMemory());
}
if (all || which.has('persistence')) {
  const { benchPersistence } = await import('./persistence.js');
  const { rows, notes } = await benchPersistence();
  await explainShortRows(rows, rdbLoadProfile);
  printRows('Persistence, npm run server vs redis-server, files on this disk (wall-clock ms, lower is better; goals: within 3x, the RDB load within 1.5x)', rows);
  for (const n of notes) console.log(`  ${n}`);
}
if (which.has('web')) {
  const { benchWeb } = await import('./web.js');
  await benchWeb(which.has('lesson16'));
}
