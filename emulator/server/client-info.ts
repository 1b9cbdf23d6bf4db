import type { Client } from './client.js';
import { clientMemoryBytes } from './info.js';

// One line of CLIENT LIST, as networking.c's catClientInfoString writes it:
// the server logs it too (output buffer limits, a replica's reply), so it
// lives with the clients rather than with the CLIENT command.

/** CLIENT LIST's flags field (catClientInfoString). */
function flagsOf(c: Client): string {
  let f = '';
  if (c.role === 'monitor') f += 'O';
  else if (c.role === 'replica') f += 'S';
  if (c.role === 'master') f += 'M';
  if (c.inPubSub) f += 'P';
  if (c.inMulti) f += 'x';
  if (c.blocked) f += 'b';
  if (c.dirtyCas) f += 'd';
  if (c.closeAfterReply) f += 'c';
  if (c.closeAsap) f += 'A';
  if (c.unixSocket !== null) f += 'U';
  if (c.readonlyMode) f += 'r';
  if (c.noEvict) f += 'e';
  return f === '' ? 'N' : f;
}

/**
 * One line of CLIENT LIST / CLIENT INFO. `current` is the client running
 * the command, whose query buffer and arguments are still in use (null
 * outside any command: serverCron's log lines).
 */
export function clientInfoLine(c: Client, current: Client | null, argv: readonly string[]): string {
  const nowS = Math.floor(c.server.nowMs / 1000);
  const isCurrent = c === current;
  let argvMem = 0;
  if (isCurrent) for (const a of argv) argvMem += a.length;
  let multiMem = 0;
  for (const q of c.queue) for (const a of q.argv) multiMem += a.length + 8;
  const qb = c.queryBuffer;
  const out = c.output;
  const argvPointers = isCurrent ? 8 * argv.length : 0;
  // A replica's reply list is counted with the blocks of the stream it refers to, and
  // its memory is those blocks only (getClientOutputBufferMemoryUsage).
  const stream = c.role === 'replica' ? c.server.replication.primary.replicaOutput(c) : null;
  const oll = out.blocks + (stream?.blocks ?? 0);
  const omem = stream === null ? out.memoryBytes : stream.bytes;
  return (
    `id=${c.id} addr=${c.address.addr} laddr=${c.address.laddr} fd=${c.address.fd} name=${c.name}` +
    ` age=${nowS - Math.floor(c.createdMs / 1000)} idle=${nowS - Math.floor(c.lastInteractionMs / 1000)}` +
    ` flags=${flagsOf(c)} db=${c.db.id} sub=${c.channels.size} psub=${c.patterns.size} ssub=${c.shardChannels.size}` +
    ` multi=${c.inMulti ? c.queue.length : -1} qbuf=${qb?.len ?? 0} qbuf-free=${qb?.free ?? 0} argv-mem=${argvMem}` +
    ` multi-mem=${multiMem} rbs=${out.bufSize} rbp=${out.bufPeak} obl=${out.bufPos} oll=${oll} omem=${omem}` +
    ` tot-mem=${clientMemoryBytes(c) + argvMem + argvPointers}` +
    ` events=r${out.waitingForSocket ? 'w' : ''} cmd=${c.lastCommand} user=${c.user} redir=-1 resp=${c.resp}`
  );
}
