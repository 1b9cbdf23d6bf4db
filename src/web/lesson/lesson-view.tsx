import { useEffect, useMemo, useRef, type RefObject } from 'react';
import { sentence } from '../../lessons/check-words.js';
import type { Lesson } from '../../lessons/lesson.js';
import { ConfirmButton } from './confirm-button.js';
import type { LessonController, LessonPaneState } from './lesson-controller.js';
import { LessonErrors } from './lesson-errors.js';
import { MarkdownView } from './markdown-view.js';
import { StepBlockView, visibleText, type BlockActions } from './step-blocks.js';

/* The lesson being followed, in the lesson pane: its step, checks, hints and solution (loaded with the first lesson opened, lesson-parts.ts). */

/** The learner's own progress in a lesson, as the list keeps it, in a few words. */
function ownProgress(state: LessonPaneState, lesson: Lesson): string | null {
  const record = state.records[lesson.meta.id];
  if (record === undefined) return null;
  return record.step >= lesson.steps.length ? 'yours is finished' : `yours is at step ${record.step + 1} of ${lesson.steps.length}`;
}

/**
 * Said above a shared moment: whose it is, that what is done in it is not
 * the learner's progress, and the way back to their own.
 */
function SharedMomentNote({ lessons, state, lesson }: { lessons: LessonController; state: LessonPaneState; lesson: Lesson }) {
  const own = ownProgress(state, lesson);
  return (
    <div className="lesson-shared" role="note" aria-label="Shared moment">
      <p>
        <strong>A shared moment.</strong> This is the lesson as it was for whoever made the link you opened. What you do here is not kept as your progress
        {own === null ? '; you have not started this lesson yourself.' : `: ${own}, as you left it.`}
      </p>
      <button type="button" onClick={() => void lessons.backToOwn()} disabled={state.busy !== null || state.reopening !== null}>
        {own === null ? 'Start this lesson myself' : 'Back to my own progress'}
      </button>
    </div>
  );
}

export function LessonView({ lessons, state, lesson }: { lessons: LessonController; state: LessonPaneState; lesson: Lesson }) {
  const progress = state.progress;
  const at = progress?.step ?? 0;
  const finished = at >= lesson.steps.length;
  const step = lesson.steps[at];
  const body = useStepStart(at);
  const actions: BlockActions = useMemo(
    () => ({
      busy: state.busy,
      run: (key, t, lines) => lessons.run(key, t, lines),
      play: (key, lines) => lessons.play(key, lines),
      editCell: (id, source) => lessons.editCell(id, source),
    }),
    [lessons, state.busy],
  );
  return (
    <>
      <h2 id="lesson-title" className="pane-title lesson-title-bar">
        <span>
          Lesson {lesson.meta.number}
          {lesson.meta.section !== '' && ` · §${lesson.meta.section}`}
          {state.shared && ' · shared moment'}
        </span>
      </h2>
      <div className="lesson-toolbar">
        <button type="button" onClick={() => lessons.showPicker()} aria-label="All lessons">
          ← Lessons
        </button>
        {/* Starting over belongs to the learner's own progress, not to someone else's moment. */}
        {!state.shared && <ConfirmButton label="Start over" question="Start this lesson again from a fresh world?" confirmLabel="Start over" onConfirm={() => lessons.reset()} />}
      </div>
      <div className="lesson-body" ref={body}>
        {state.shared && <SharedMomentNote lessons={lessons} state={state} lesson={lesson} />}
        <h3 className="lesson-heading">{lesson.meta.title}</h3>
        <StepNav lessons={lessons} lesson={lesson} state={state} />
        {at === 0 && lesson.intro !== '' && <MarkdownView text={lesson.intro} className="lesson-intro" />}
        {at > 0 && lesson.intro !== '' && (
          <details className="lesson-intro-again">
            <summary>About this lesson</summary>
            <MarkdownView text={lesson.intro} />
          </details>
        )}
        {step !== undefined && progress !== null && (
          <section className="lesson-step" aria-labelledby="lesson-step-title">
            <h4 id="lesson-step-title" className="step-title" tabIndex={-1}>
              Step {at + 1} of {lesson.steps.length}: {step.title}
            </h4>
            {step.blocks.map((b, k) => {
              const key = `${at}:${k}`;
              return <StepBlockView key={key} block={b} blockKey={key} output={state.eventOutput[key]} actions={actions} />;
            })}
            <ChecksView lessons={lessons} state={state} done={progress.done[at] === true} last={at === lesson.steps.length - 1} />
            <HintsView lessons={lessons} state={state} hints={step.hints} shown={progress.hints[at] ?? 0} />
            <SolutionView lessons={lessons} state={state} at={at} lesson={lesson} revealed={progress.solution[at] === true} />
          </section>
        )}
        {finished && (
          <section className="lesson-finished" aria-label="Lesson complete">
            <p className="step-done">✓ Lesson complete.</p>
            {lesson.outro !== '' && <MarkdownView text={lesson.outro} />}
            <p className="lesson-finished-actions">
              <button type="button" onClick={() => lessons.showPicker()}>
                Choose another lesson
              </button>
              {!state.shared && (
                <ConfirmButton
                  label="Start again"
                  question={`Start “${lesson.meta.title}” again from a fresh world?`}
                  confirmLabel="Start again"
                  onConfirm={() => void lessons.startAgainOpen()}
                />
              )}
            </p>
          </section>
        )}
        <LessonErrors errors={[state.error]} />
      </div>
    </>
  );
}

/**
 * When the learner goes to another step from the pane (Next step at the
 * foot of a long step, a step's number), the new step starts at its
 * beginning: the pane scrolled to its top, the focus on its title so a
 * screen reader says which step this is. Without it the pane kept the
 * old step's scroll, and the learner landed in the middle of the new
 * one. Focus that is elsewhere (the terminal) is left where it is.
 * Returns the ref for the scrolling body of the pane.
 */
function useStepStart(at: number): RefObject<HTMLDivElement | null> {
  const body = useRef<HTMLDivElement>(null);
  const shown = useRef(at);
  useEffect(() => {
    if (shown.current === at) return;
    shown.current = at;
    const pane = body.current;
    if (pane === null) return;
    pane.scrollTo({ top: 0 });
    const focus = document.activeElement;
    if (focus === null || focus === document.body || pane.closest('.lesson-pane')?.contains(focus) === true) {
      pane.querySelector<HTMLElement>('#lesson-step-title')?.focus({ preventScroll: true });
    }
  }, [at]);
  return body;
}

/** The steps as numbered buttons: done ones ticked, the current one marked. Going back makes a step current again. */
function StepNav({ lessons, lesson, state }: { lessons: LessonController; lesson: Lesson; state: LessonPaneState }) {
  const p = state.progress;
  if (p === null) return null;
  return (
    <nav className="step-nav" aria-label="Steps">
      <ol>
        {lesson.steps.map((s, i) => {
          const done = p.done[i] === true;
          const current = i === p.step;
          return (
            <li key={i}>
              <button
                type="button"
                className={`step-chip${done ? ' done' : ''}${current ? ' current' : ''}`}
                aria-current={current ? 'step' : undefined}
                aria-label={`Step ${i + 1}: ${s.title}${done ? ' (done)' : ''}`}
                title={s.title}
                onClick={() => lessons.goTo(i)}
                disabled={state.busy !== null}
              >
                {done ? '✓' : i + 1}
              </button>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

function ChecksView({ lessons, state, done, last }: { lessons: LessonController; state: LessonPaneState; done: boolean; last: boolean }) {
  const results = state.status?.results ?? [];
  return (
    <div className={`lesson-checks${done ? ' done' : ''}`}>
      <h5 className="checks-title">{done ? 'Step done' : 'To finish this step'}</h5>
      <ul aria-live="polite" aria-label="Checks">
        {results.map((r, i) => (
          <li key={i} className={r.ok ? 'check ok' : 'check failing'}>
            <span className="check-mark" aria-hidden="true">
              {r.ok ? '✓' : '○'}
            </span>
            <span className="check-text">
              <span className="visually-hidden">{r.ok ? 'Done: ' : 'Not yet: '}</span>
              <span className="check-label">{r.label}</span>
              {!r.ok && <span className="check-why small">{r.whyNot ?? `${sentence(r.detail)}.`}</span>}
            </span>
          </li>
        ))}
      </ul>
      {done && (
        <button type="button" className="primary next-step" onClick={() => lessons.next()} disabled={state.busy !== null}>
          {last ? 'Finish the lesson' : 'Next step →'}
        </button>
      )}
    </div>
  );
}

function HintsView({ lessons, state, hints, shown }: { lessons: LessonController; state: LessonPaneState; hints: readonly string[]; shown: number }) {
  if (hints.length === 0) return null;
  return (
    <div className="lesson-hints">
      {hints.slice(0, shown).map((h, i) => (
        <div key={i} className="hint">
          <span className="hint-label small muted">Hint {i + 1}</span>
          <MarkdownView text={h} />
        </div>
      ))}
      {shown < hints.length && (
        <button type="button" onClick={() => lessons.showHint()} disabled={state.busy !== null}>
          {shown === 0 ? 'Show a hint' : 'Another hint'} ({shown + 1} of {hints.length})
        </button>
      )}
    </div>
  );
}

function SolutionView({ lessons, state, at, lesson, revealed }: { lessons: LessonController; state: LessonPaneState; at: number; lesson: Lesson; revealed: boolean }) {
  const step = lesson.steps[at]!;
  if (!revealed) {
    return (
      <div className="lesson-solution">
        <ConfirmButton label="Show the solution" question="Show the solution? Trying first teaches more." confirmLabel="Show it" onConfirm={() => lessons.revealSolution()} />
      </div>
    );
  }
  const key = `solution:${at}`;
  const out = state.eventOutput[key];
  return (
    <div className="lesson-solution revealed">
      <h5 className="checks-title">Solution</h5>
      <pre className="block-lines" aria-label="The solution, line by line">
        <code>
          {step.solution
            .map((e) => (e.kind === 'line' ? `${e.terminal}> ${e.line}` : e.kind === 'event' ? `(event) ${e.line}` : `(run the code cell ${e.id})`))
            .join('\n')}
        </code>
      </pre>
      {/* Offered until the step is done: played again over a finished step, it could undo what the next step starts from. */}
      {(state.progress?.done[at] !== true || state.busy === key) && (
        <button type="button" onClick={() => lessons.playSolution()} disabled={state.busy !== null}>
          {state.busy === key ? 'Playing…' : 'Do it for me'}
        </button>
      )}
      {out !== undefined && <pre className="block-output">{visibleText(out)}</pre>}
    </div>
  );
}
