// Every test runs with every command's code, also that of the commands the
// page loads on first use (emulator/commands/on-demand.ts).
import '../../emulator/commands/on-demand-handlers.js';
