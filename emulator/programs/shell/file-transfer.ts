import { bytesFromArray, bytesToArray } from '../../resp/bytes.js';
import type { Host } from '../../sim/host.js';
import type { Socket } from '../../sim/network.js';
import { errnoCode } from './errors.js';
import { join } from './files.js';

/**
 * The wire side of scp: a small request/response protocol over a real
 * simulated TCP connection to port 22, standing in for SSH and SFTP. Its
 * messages are framed as one type byte, an 8-digit hex length and the
 * payload. What matters for the simulation is that the file's bytes
 * really cross the link (taking its bandwidth and latency) and that the
 * set-up costs round trips, as SSH's key exchange and SFTP's open do.
 *
 *   H  hello (both ways; two exchanges stand for the SSH handshake)
 *   R  path               read a file; answered by S, then D... and E
 *   W  size \n path \n name   write a file; answered by S, then the client sends D... E, answered by A
 *   S  status: "ok <size>" or an errno code
 *   D  data   E  end   A  final status of a write
 */

export const SSH_PORT = 22;

/** Bytes of one handshake message: roughly SSH's KEXINIT with its algorithm lists. */
const HELLO_BYTES = 600;

export type MessageType = 'H' | 'R' | 'W' | 'S' | 'D' | 'E' | 'A';

export function frame(type: MessageType, payload: string): string {
  return type + payload.length.toString(16).padStart(8, '0') + payload;
}

/** Reassembles framed messages from a byte stream. */
export class FrameReader {
  private buffer = '';

  constructor(private readonly onMessage: (type: MessageType, payload: string) => void) {}

  feed(data: Uint8Array): void {
    this.buffer += bytesFromArray(data);
    for (;;) {
      if (this.buffer.length < 9) return;
      const length = parseInt(this.buffer.slice(1, 9), 16);
      if (this.buffer.length < 9 + length) return;
      const type = this.buffer[0] as MessageType;
      const payload = this.buffer.slice(9, 9 + length);
      this.buffer = this.buffer.slice(9 + length);
      this.onMessage(type, payload);
    }
  }
}

export function hello(): string {
  return frame('H', 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n'.padEnd(HELLO_BYTES, '\0'));
}

/** Relative remote paths start in the remote user's home, as scp's do. */
export function remotePath(path: string): string {
  if (path === '' || path === '~') return '/root';
  if (path.startsWith('~/')) return '/root/' + path.slice(2);
  return path.startsWith('/') ? path : '/root/' + path;
}

const daemons = new WeakMap<Host, { users: number; bootId: number }>();

/**
 * Who wants to know how many bytes of a client's connection have reached
 * the server (scp's progress for an upload). The simulation can see both
 * ends, so no acknowledgements need to travel for it.
 */
const deliveryWatchers = new WeakMap<Socket, (bytes: number) => void>();

export function watchDelivery(client: Socket, fn: (totalBytes: number) => void): void {
  deliveryWatchers.set(client, fn);
}

/**
 * Makes sure the host answers on port 22 while a transfer needs it; the
 * returned function releases it. False when something else holds the port.
 */
export function holdSshd(host: Host): (() => void) | null {
  let d = daemons.get(host);
  if (d !== undefined && (d.bootId !== host.bootId || host.listener(SSH_PORT) === undefined) && d.users > 0 && host.powered) {
    // The host rebooted since: its listeners are gone.
    d = undefined;
  }
  if (d === undefined || d.users === 0) {
    if (!host.listen(SSH_PORT, (s) => serve(host, s))) return null;
    d = { users: 0, bootId: host.bootId };
    daemons.set(host, d);
  }
  d.users++;
  const held = d;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held.users--;
    if (held.users === 0 && daemons.get(host) === held) {
      host.unlisten(SSH_PORT);
      daemons.delete(host);
    }
  };
}

/** The server side of one connection: reads and writes files on `host`'s disk. */
function serve(host: Host, socket: Socket): void {
  const disk = host.disk;
  let writing: { path: string; failed: string | null } | null = null;
  const send = (type: MessageType, payload: string): void => void socket.write(frame(type, payload));
  const reader = new FrameReader((type, payload) => {
    switch (type) {
      case 'H':
        send('H', hello().slice(9));
        break;
      case 'R': {
        const path = remotePath(payload);
        let bytes: Uint8Array;
        try {
          if (disk.stat(path).isDirectory) {
            send('S', 'EISDIR');
            break;
          }
          bytes = disk.readFile(path);
        } catch (e) {
          send('S', errnoCode(e) ?? 'EIO');
          break;
        }
        send('S', `ok ${bytes.length}`);
        send('D', bytesFromArray(bytes));
        send('E', '');
        break;
      }
      case 'W': {
        const [, dir, name] = payload.split('\n');
        let path = remotePath(dir!);
        try {
          if (disk.exists(path) && disk.stat(path).isDirectory) path = join(path.replace(/\/+$/, '') || '/', name!);
          // A name ending in a slash can only be a directory: creating a
          // file by it fails as open(2) does.
          else if (path.endsWith('/')) throw Object.assign(new Error('Is a directory'), { code: 'EISDIR', path });
          disk.writeFile(path, new Uint8Array(0));
        } catch (e) {
          send('S', `${errnoCode(e) ?? 'EIO'} ${path}`);
          break;
        }
        writing = { path, failed: null };
        send('S', 'ok 0');
        break;
      }
      case 'D':
        if (writing !== null && writing.failed === null) {
          try {
            disk.appendFile(writing.path, bytesToArray(payload));
          } catch (e) {
            writing.failed = errnoCode(e) ?? 'EIO';
          }
        }
        break;
      case 'E':
        if (writing !== null) {
          send('A', writing.failed ?? 'ok');
          writing = null;
        }
        break;
    }
  });
  const client = socket.peer;
  let arrived = 0;
  socket.onData = (data) => {
    arrived += data.length;
    if (client !== null) deliveryWatchers.get(client)?.(arrived);
    reader.feed(data);
  };
  socket.onClose = () => {};
}

