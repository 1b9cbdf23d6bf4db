import { corrupt } from './report.js';
import { LENERR, type Rio } from './rio.js';

/**
 * Module values under redis-check-rdb (rdbLoadCheckModuleValue): with no
 * module loaded, a version-2 value can still be walked, since it is a
 * sequence of typed opcodes ending in EOF.
 */

const OPCODE_EOF = 0n;
const OPCODE_SINT = 1n;
const OPCODE_UINT = 2n;
const OPCODE_FLOAT = 3n;
const OPCODE_DOUBLE = 4n;
const OPCODE_STRING = 5n;

const LINE = {
  integer: 1540,
  string: 1546,
  float: 1553,
  double: 1559,
} as const;

const NAME_CHARSET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The nine-character type name a module id carries in its upper 54 bits (moduleTypeNameByID). */
export function moduleTypeName(id: bigint): string {
  let rest = BigInt.asUintN(64, id) >> 10n;
  let name = '';
  for (let j = 0; j < 9; j++) {
    name = NAME_CHARSET[Number(rest & 63n)] + name;
    rest >>= 6n;
  }
  return name;
}

/**
 * Walks one module value. When the data ends where an opcode should be,
 * the real tool loops forever (every later read fails and no opcode is
 * EOF); this one stops and reports the end of the file instead.
 */
export function checkModuleValue(r: Rio, name: string): boolean {
  for (;;) {
    const opcode = r.len();
    if (opcode === OPCODE_EOF) return true;
    if (opcode === LENERR && r.readError) return false;
    if (opcode === OPCODE_SINT || opcode === OPCODE_UINT) {
      if (r.lenOrEncoding() === null) corrupt(LINE.integer, `Error reading integer from module ${name} value`);
    } else if (opcode === OPCODE_STRING) {
      if (r.string() === null) corrupt(LINE.string, `Error reading string from module ${name} value`);
    } else if (opcode === OPCODE_FLOAT) {
      if (r.read(4) === null) corrupt(LINE.float, `Error reading float from module ${name} value`);
    } else if (opcode === OPCODE_DOUBLE) {
      if (r.read(8) === null) corrupt(LINE.double, `Error reading double from module ${name} value`);
    }
  }
}
