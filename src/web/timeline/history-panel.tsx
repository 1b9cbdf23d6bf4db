import { CheckpointPanel, type CheckpointPick } from './checkpoint-panel.js';
import type { EventFilter } from './event-filter.js';
import { EventList } from './event-list.js';
import { SessionControls } from './session-controls.js';

/**
 * The timeline's folding panel: the checkpoints with rewind and fork, the
 * branches, the session's export, import and reset, and the event list.
 * It loads when first opened (timeline-bar.tsx).
 */
export default function HistoryPanel(props: {
  selected: CheckpointPick | null;
  onSelect: (pick: CheckpointPick | null) => void;
  filter: EventFilter;
  onFilter: (f: EventFilter) => void;
}) {
  return (
    <>
      <div className="timeline-side">
        <CheckpointPanel selected={props.selected} onSelect={props.onSelect} />
        <SessionControls />
      </div>
      <EventList filter={props.filter} onFilter={props.onFilter} />
    </>
  );
}
