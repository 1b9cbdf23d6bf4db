import { lazy } from 'react';
import { LaterPart } from '../layout/later-part.js';
import { lessonWorkbook } from './lesson-loaders.js';

/** The lesson list loads after the page is up; a lesson's machinery (Markdown, YAML, the schema, the runner) when one is opened. */
const LessonWorkbook = lazy(lessonWorkbook);

/** The lesson pane: the lesson picker, or the current lesson's step with its checks. */
export function LessonPane() {
  return (
    <section className="pane lesson-pane" aria-labelledby="lesson-title">
      <LaterPart
        what="The lessons"
        loading={
          <>
            <h2 id="lesson-title" className="pane-title">
              Lessons
            </h2>
            <p className="lesson-loading muted">Loading the lessons…</p>
          </>
        }
      >
        <LessonWorkbook />
      </LaterPart>
    </section>
  );
}
