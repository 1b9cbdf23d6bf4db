import { useSyncExternalStore } from 'react';
import type { CatalogueEntry } from '../../lessons/catalogue.js';
import { useStore } from '../store-context.js';
import { ConfirmButton } from './confirm-button.js';
import { LessonErrors } from './lesson-errors.js';
import { lessonController, type LessonController, type LessonPaneState } from './lesson-controller.js';
import { ProgressControls } from './progress-controls.js';
import './lesson.css';

/** The lesson pane's content: the picker or the current lesson (loaded lazily by lesson-pane.tsx). */
export default function LessonWorkbook() {
  const store = useStore();
  const lessons = lessonController(store);
  const state = useSyncExternalStore(lessons.subscribe, lessons.getState);
  // The lesson's view came with the lesson (LessonController loads it with the lesson's file).
  const LessonView = lessons.lessonView;
  return state.view === 'lesson' && state.lesson !== null && LessonView !== null ? (
    <LessonView lessons={lessons} state={state} lesson={state.lesson} />
  ) : (
    <LessonPicker lessons={lessons} state={state} />
  );
}

function LessonPicker({ lessons, state }: { lessons: LessonController; state: LessonPaneState }) {
  const current = state.lesson;
  const occupied = state.reopening !== null || state.opening !== null;
  return (
    <>
      <h2 id="lesson-title" className="pane-title">
        Lessons
      </h2>
      <div className="lesson-body">
        <p className="lesson-picker-intro muted">
          Each lesson sets up its own machines and takes you through them step by step. New to Redis? Start with lesson 0.
        </p>
        {current !== null && state.progress !== null && (
          <p>
            <button type="button" className="primary" onClick={() => lessons.showLesson()}>
              {state.shared ? `Back to the shared moment in “${current.meta.title}”` : `Continue “${current.meta.title}”`}
            </button>
          </p>
        )}
        <ul className="lesson-list" aria-label="Lessons">
            {state.catalogue.map((l) => {
              const where = lessonState(state, l);
              return (
                <li key={l.id} className="lesson-list-item">
                  {/* The button's name is "Lesson N: Title", made of its own text (a name from
                      aria-label would differ from what the eye reads, which voice control users
                      speak); the rest of what it shows is its description. */}
                  <button type="button" className="lesson-entry" aria-describedby={`lesson-summary-${l.id} lesson-state-${l.id}`} onClick={() => void lessons.choose(l)} disabled={occupied}>
                    <span className="visually-hidden">{`Lesson ${l.number}: `}</span>
                    <span className="lesson-number" aria-hidden="true">
                      {l.number}
                    </span>
                    <span className="lesson-entry-text">
                      <span className="lesson-entry-title">
                        {l.title}
                        {l.section !== '' && (
                          <span className="muted small" aria-hidden="true">
                            {' '}
                            · §{l.section}
                          </span>
                        )}
                      </span>
                      <span id={`lesson-summary-${l.id}`} className="muted small" aria-hidden="true">
                        {l.section !== '' && <span className="visually-hidden">{`Section ${l.section}. `}</span>}
                        {l.summary}
                      </span>
                      <span id={`lesson-state-${l.id}`} className={`lesson-entry-progress small ${where.kind}`} aria-hidden="true">
                        {where.text}
                      </span>
                    </span>
                  </button>
                  {where.kind !== 'not-started' && (
                    <ConfirmButton
                      label="Start again"
                      className="lesson-start-again"
                      ariaLabel={`Start lesson ${l.number} again`}
                      question={`Start “${l.title}” again from a fresh world? Where you left it is forgotten.`}
                      confirmLabel="Start again"
                      onConfirm={() => void lessons.startAgain(l)}
                    />
                  )}
                </li>
              );
            })}
            <li>
              <button type="button" className="lesson-entry" aria-describedby="lesson-summary-sandbox" onClick={() => void lessons.openSandbox()}>
                <span className="lesson-number" aria-hidden="true">
                  ◇
                </span>
                <span className="lesson-entry-text">
                  <span className="visually-hidden">Sandbox: no lesson</span>
                  <span className="lesson-entry-title" aria-hidden="true">
                    Sandbox
                  </span>
                  <span id="lesson-summary-sandbox" className="muted small" aria-hidden="true">
                    A machine “redis” running redis-server and a client machine “app”: no steps, no checks.
                  </span>
                </span>
              </button>
            </li>
          </ul>
        <ProgressControls lessons={lessons} disabled={occupied || state.busy !== null} />
        {state.reopening !== null && (
          <p className="muted" role="status">
            Opening “{state.reopening}” where you left it…
          </p>
        )}
        {state.opening !== null && (
          <p className="muted" role="status">
            Opening “{state.opening}”…
          </p>
        )}
        <LessonErrors errors={[...state.catalogueErrors, state.error]} />
      </div>
    </>
  );
}

/**
 * Where the learner is in a lesson, for the list: not started, step k of
 * n, or finished. A shared moment open now is someone else's progress:
 * the list says the learner's own, and that the moment is open.
 */
function lessonState(state: LessonPaneState, lesson: CatalogueEntry): { kind: 'not-started' | 'in-progress' | 'finished'; text: string } {
  const n = lesson.steps;
  const open = state.lesson?.meta.id === lesson.id;
  const live = open && !state.shared ? state.progress : null;
  const record = state.records[lesson.id];
  const step = live?.step ?? record?.step;
  const also = open && state.shared ? ' · a shared moment is open' : '';
  if (step === undefined) return { kind: 'not-started', text: `Not started${also}` };
  if (step >= n) return { kind: 'finished', text: `✓ Finished${also}` };
  return { kind: 'in-progress', text: `Step ${step + 1} of ${n}${live !== null ? ' · open now' : also}` };
}
