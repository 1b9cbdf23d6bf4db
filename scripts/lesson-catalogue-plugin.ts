import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { buildCatalogue, type Catalogue } from '../src/lessons/catalogue.js';

const ID = 'virtual:lesson-catalogue';
const RESOLVED = '\0' + ID;
export const LESSONS_DIR = fileURLToPath(new URL('../lessons', import.meta.url));

/** A lesson file's name: two digits, a dash, the lesson's id. */
const LESSON_FILE = /^\d\d-.*\.md$/;

/** The catalogue of the lesson files in `dir`, as the page is built with it. */
export function catalogueOfDir(dir: string = LESSONS_DIR): Catalogue {
  const files = readdirSync(dir).filter((f) => LESSON_FILE.test(f));
  return buildCatalogue(files.map((file) => ({ file, text: readFileSync(join(dir, file), 'utf8') })));
}

/**
 * `import catalogue from 'virtual:lesson-catalogue'`: every lesson's id,
 * number, title, summary and step count, made from the lesson files when
 * the page is built (or served), so the lesson list shows without the
 * page parsing and validating every lesson file (Markdown, YAML, the
 * schema) on the thread the terminal's world starts on. A lesson is
 * parsed in the page when it is opened. A file that does not parse is
 * listed among the catalogue's errors, as the page shows them.
 */
export function lessonCataloguePlugin(dir: string = LESSONS_DIR): Plugin {
  return {
    name: 'workbook-lesson-catalogue',
    resolveId(id) {
      return id === ID ? RESOLVED : null;
    },
    load(id) {
      if (id !== RESOLVED) return null;
      for (const f of readdirSync(dir)) if (LESSON_FILE.test(f)) this.addWatchFile(join(dir, f));
      return `export default ${JSON.stringify(catalogueOfDir(dir))};`;
    },
    configureServer(server) {
      // A lesson file added or removed while the dev server runs changes the list.
      const changed = (file: string): void => {
        if (!file.startsWith(dir) || !LESSON_FILE.test(file.slice(file.lastIndexOf('/') + 1))) return;
        for (const env of Object.values(server.environments)) {
          const mod = env.moduleGraph.getModuleById(RESOLVED);
          if (mod !== undefined) env.moduleGraph.invalidateModule(mod);
        }
        server.ws.send({ type: 'full-reload' });
      };
      server.watcher.on('add', changed);
      server.watcher.on('unlink', changed);
    },
  };
}
