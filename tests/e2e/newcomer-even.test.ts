// The newcomer in Chromium over every other lesson file; newcomer-odd.test.ts has the rest, so the two run side by side.
import { newcomerSuite } from './newcomer.js';

newcomerSuite((_file, index) => index % 2 === 0);
