/** What went wrong in the lesson pane, each an alert a screen reader says at once. */
export function LessonErrors({ errors }: { errors: ReadonlyArray<string | null> }) {
  return errors.map((e, i) =>
    e === null ? null : (
      <p key={`${i}:${e}`} className="lesson-error" role="alert">
        {e}
      </p>
    ),
  );
}
