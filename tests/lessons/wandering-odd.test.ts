// The wandering learner over every other lesson file; wandering-even.test.ts has the rest, so the two run side by side.
import { wanderingSuite } from './wandering-suite.js';

wanderingSuite((_file, index) => index % 2 === 1);
