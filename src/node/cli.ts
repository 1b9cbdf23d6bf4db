/**
 * `npm run cli` / `npm start`: the redis-cli-like terminal on an in-process
 * emulated server (see cli-main.ts).
 */
import { runCli } from './cli-main.js';

const status = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
// Leave once everything written has reached the terminal or the pipe.
process.stdout.write('', () => process.exit(status));
