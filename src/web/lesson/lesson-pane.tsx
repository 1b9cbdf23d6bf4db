/** The lesson pane: where lessons will show their steps, checks and hints. */
export function LessonPane() {
  return (
    <section className="pane lesson-pane" aria-labelledby="lesson-title">
      <h2 id="lesson-title" className="pane-title">
        Lesson
      </h2>
      <div className="lesson-body">
        <p className="placeholder">Lessons arrive here.</p>
        <p className="muted">
          Meanwhile this is a sandbox: a machine <code>redis</code> runs redis-server 7.0 on port 6379, and <code>app</code> is a client machine next to it.
          Type Redis commands in the terminal, or open a shell on either machine with <kbd>+</kbd>.
        </p>
      </div>
    </section>
  );
}
