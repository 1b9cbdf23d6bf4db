import { useSession, useSessionSnapshot } from '../session/session-context.js';
import { downloadText } from '../download.js';

/** What the session has to say (an import refused, a session that could not be restored), until dismissed. */
export function TimelineNotice() {
  const session = useSession();
  const snap = useSessionSnapshot();
  const notice = snap.notice;
  if (notice === null) return null;
  return (
    <div className={`timeline-notice ${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
      <span>{notice.text}</span>
      {snap.unreadableKept ? (
        <button
          type="button"
          onClick={() =>
            void session.savedUnreadable().then((text) => {
              if (text !== null) downloadText(text, 'redis-workbook-unreadable-session.json');
            })
          }
        >
          Download the old session
        </button>
      ) : null}
      <button type="button" onClick={() => session.dismissNotice()} aria-label="Dismiss the message">
        Dismiss
      </button>
    </div>
  );
}
