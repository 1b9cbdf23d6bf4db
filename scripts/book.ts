/**
 * npm run book: the figures of Redis in Action chapter 4, reproduced in
 * virtual time, one line each: `<table> <row> <column> book=<value> sim=<value>`.
 * Exits non-zero when a figure is out of its tolerance.
 */
import { formatFigure, listing410, table44, table45, type Figure } from '../emulator/scenarios/book-figures.js';

const all: Figure[] = [];
const listing = listing410();
all.push(...listing.figures);
all.push(...(await table44()));
all.push(...(await table45(listing.setPerSec)).figures);
for (const f of all) console.log(formatFigure(f));
const bad = all.filter((f) => !f.ok).length;
console.log(`${all.length - bad} of ${all.length} figures within tolerance`);
process.exitCode = bad === 0 ? 0 : 1;
