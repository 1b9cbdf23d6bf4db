import { useState } from 'react';
import { useStore, useWorkbook } from '../store-context.js';
import { formatElapsed, formatSpeed, formatStep, formatVirtualTime, SPEEDS, speedIndex, STEPS_MS } from './clock-format.js';

/**
 * The bottom bar: the virtual clock, play and pause, a step of virtual
 * time while paused, and the speed at which virtual time follows the wall
 * clock (0.1× to 100×).
 */
export function TimelineBar() {
  const store = useStore();
  const clock = useWorkbook((s) => s.clock);
  const [stepMs, setStepMs] = useState(100);
  const index = speedIndex(clock.speed);
  return (
    <footer className="timeline" aria-label="Time controls">
      <div className="timeline-controls">
        <button
          type="button"
          className="icon-button"
          onClick={() => (clock.paused ? store.resume() : store.pause())}
          aria-label={clock.paused ? 'Run virtual time' : 'Pause virtual time'}
          title={clock.paused ? 'Run' : 'Pause'}
        >
          <span aria-hidden="true">{clock.paused ? '▶' : '❚❚'}</span>
        </button>
        <button
          type="button"
          onClick={() => store.step(stepMs)}
          disabled={!clock.paused}
          title={clock.paused ? `Move virtual time on by ${formatStep(stepMs)}` : 'Pause to step through time'}
        >
          Step
        </button>
        <label className="step-size">
          <span className="visually-hidden">Step size</span>
          <select value={stepMs} onChange={(e) => setStepMs(Number(e.target.value))}>
            {STEPS_MS.map((ms) => (
              <option key={ms} value={ms}>
                {formatStep(ms)}
              </option>
            ))}
          </select>
        </label>
        <label className="speed">
          <span>Speed</span>
          <input
            type="range"
            min={0}
            max={SPEEDS.length - 1}
            step={1}
            value={index}
            aria-valuetext={formatSpeed(SPEEDS[index]!)}
            onChange={(e) => store.setSpeed(SPEEDS[Number(e.target.value)]!)}
          />
          <output className="speed-value">{formatSpeed(clock.speed)}</output>
        </label>
      </div>
      <div className="clock" aria-label="Virtual clock">
        <span className={clock.paused ? 'clock-state paused' : 'clock-state'}>{clock.paused ? 'paused' : 'running'}</span>
        <time className="clock-elapsed" title="Virtual time since the world began">
          T+{formatElapsed(clock.nowUs - clock.startUs)}
        </time>
        <time className="clock-date" dateTime={new Date(Math.floor(clock.nowUs / 1000)).toISOString()} title="The simulated machines' clock (UTC)">
          {formatVirtualTime(clock.nowUs)} UTC
        </time>
      </div>
    </footer>
  );
}
