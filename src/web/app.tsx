import { useState } from 'react';
import { ClusterPanel } from './cluster/cluster-panel.js';
import { Splitter } from './layout/splitter.js';
import { LessonPane } from './lesson/lesson-pane.js';
import { TerminalArea } from './terminal/terminal-area.js';
import { ThemeToggle } from './theme/theme-toggle.js';
import { useTheme } from './theme/use-theme.js';
import { TimelineBar } from './timeline/timeline-bar.js';

/** The narrowest the lesson and cluster panes go, by their splitters or in a narrow window. */
const LESSON_MIN_PX = 180;
const CLUSTER_MIN_PX = 220;

/** The workbook: lesson (left), terminals (centre), cluster (right), time controls (bottom). */
export function App() {
  const { theme, toggle } = useTheme();
  const [lessonWidth, setLessonWidth] = useState(390);
  const [clusterWidth, setClusterWidth] = useState(340);
  return (
    // The side panes take the widths given them while the window has room, and give way down to their splitters'
    // least when it has not, so a window narrower than the three panes never scrolls sideways.
    <div className="workbook" style={{ gridTemplateColumns: `minmax(${LESSON_MIN_PX}px, ${lessonWidth}px) auto minmax(320px, 1fr) auto minmax(${CLUSTER_MIN_PX}px, ${clusterWidth}px)` }}>
      <header className="top-bar">
        <h1 className="app-title">
          <span className="logo" aria-hidden="true">◆</span> Redis workbook
        </h1>
        <span className="muted top-note">An emulated Redis 7.0 on simulated machines, in your browser.</span>
        <ThemeToggle theme={theme} toggle={toggle} />
      </header>
      <LessonPane />
      <Splitter label="Resize the lesson pane" className="lesson-splitter" value={lessonWidth} min={LESSON_MIN_PX} max={640} onChange={setLessonWidth} />
      <TerminalArea theme={theme} />
      <Splitter label="Resize the cluster pane" className="cluster-splitter" value={clusterWidth} min={CLUSTER_MIN_PX} max={720} onChange={setClusterWidth} paneOnRight />
      <ClusterPanel />
      <TimelineBar />
    </div>
  );
}
