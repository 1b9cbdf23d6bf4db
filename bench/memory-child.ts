/**
 * Child process of the memory benchmark: loads N keys the way DEBUG POPULATE
 * would ("key:N" -> "value:N" cut or NUL-padded to 10 bytes) and prints the
 * heap growth. Run with --expose-gc.
 */
// Every command's code, also those kept apart (emulator/commands/on-demand.ts).
import '../emulator/commands/on-demand-handlers.js';
import { ManualClock, createServer } from '../emulator/index.js';

const n = Number(process.argv[2] ?? 1_000_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

function heap(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

const server = createServer({ clock: new ManualClock() });
const client = server.connect();
const before = heap();
for (let i = 0; i < n; i++) {
  const v = ('value:' + i).slice(0, 10).padEnd(10, '\0');
  server.execute(client, ['SET', 'key:' + i, v]);
}
const after = heap();
if (server.dbs[0]!.size !== n) throw new Error('not all keys were stored');
console.log(`heapGrowth=${after - before}`);
