/**
 * `npm run server -- [redis-server arguments]`: the emulator behind a TCP
 * port, started like redis-server (see server-main.ts).
 */
import { main } from './server-main.js';

await main();
