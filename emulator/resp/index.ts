/**
 * A front of the door for the page's light modules (terminal, lesson steps,
 * world programs): byte strings to and from UTF-8 and a command's RESP
 * framing, without emulator/index.ts, whose other exports would add to the
 * initial JavaScript. Node programs and src/lessons use emulator/index.ts.
 *
 *   const bytes = utf8ToBytes('héllo');        // "h\xc3\xa9llo"
 *   encodeCommand(['SET', 'k', bytes]);        // "*3\r\n$3\r\nSET\r\n..."
 */
export { bytesToUtf8, utf8ToBytes } from './bytes.js';
export { encodeCommand } from './encode.js';
