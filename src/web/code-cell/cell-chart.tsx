import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useTheme } from '../theme/use-theme.js';
import { visibleControls } from '../terminal/sanitize.js';
import { formatFigure, type BarChart } from './chart-spec.js';

/** Each group's bars take this share of the space between two groups. */
const GROUP_WIDTH = 0.8;
const HEIGHT_PX = 240;
/** The narrowest the canvas is drawn; the lesson pane at its narrowest leaves a chart about this much. */
const MIN_WIDTH_PX = 120;
/** Colours of the series, by their place among the series of their kind (yours or the book's). */
const PALETTE = ['--accent', '--focus', '--ok', '--off', '--type-list', '--type-hash'];

/**
 * A bar chart of a cell's report, drawn with uPlot on a canvas: one group
 * of bars per category, the book's figures (reference series) as pale
 * bars beside the learner's own. Loaded only when a cell reports a chart,
 * so uPlot stays out of the page's first download. The same numbers are
 * in the table next to it (CellReports), which is what assistive
 * technology reads.
 */
export default function CellChart({ chart }: { chart: BarChart }) {
  const box = useRef<HTMLDivElement>(null);
  const names = useRef<HTMLOListElement>(null);
  const { theme } = useTheme();

  useEffect(() => {
    const el = box.current;
    const list = names.current;
    if (el === null || list === null) return;
    const { read: color, done: coloursRead } = colourReader(el);
    const muted = color('--muted');
    const kinds = { own: 0, reference: 0 };
    const groups = chart.groups;
    const n = chart.series.length;
    const barWidth = GROUP_WIDTH / n;
    const series: uPlot.Series[] = [
      {},
      ...chart.series.map((s, k): uPlot.Series => {
        const hue = color(PALETTE[(s.reference ? kinds.reference++ : kinds.own++) % PALETTE.length]!);
        return {
          label: s.label,
          stroke: hue,
          fill: s.reference ? withAlpha(hue, 0.3) : hue,
          width: s.reference ? 1 : 0,
          points: { show: false },
          value: (_u, v) => (v === null ? '–' : formatFigure(v)),
          // Drawn down to the axis's floor, so bars start at the bottom on a log scale too.
          fillTo: (u) => u.scales.y!.min ?? 0,
          paths: uPlot.paths.bars!({
            disp: {
              x0: { unit: 1, values: () => groups.map((_, i) => i - GROUP_WIDTH / 2 + k * barWidth) },
              size: { unit: 1, values: () => [barWidth * 0.92] },
            },
          }),
        };
      }),
    ];
    const data: uPlot.AlignedData = [groups.map((_, i) => i), ...chart.series.map((s) => s.values.map((v) => (v === null || (chart.log && v <= 0) ? null : v)))];
    const plot = new uPlot(
      {
        width: Math.max(MIN_WIDTH_PX, el.clientWidth),
        height: HEIGHT_PX,
        title: chart.title || undefined,
        cursor: { points: { show: false }, drag: { x: false, y: false } },
        select: { show: false, left: 0, top: 0, width: 0, height: 0 },
        scales: {
          x: { time: false, range: () => [-0.5, groups.length - 0.5] },
          y: chart.log ? { distr: 3, log: 10, range: (_u, min, max) => decades(min, max) } : { range: (_u, _min, max) => [0, max * 1.08] },
        },
        axes: [
          // The group names are text under the canvas (the list below), where they wrap in a narrow pane instead of running into each other.
          { show: false },
          {
            stroke: muted,
            label: chart.unit || undefined,
            grid: { stroke: withAlpha(muted, 0.25) },
            // On a log scale, a line and a label at each power of ten only: the lines between crowd a small chart.
            ...(chart.log ? { splits: (u: uPlot) => powersOfTen(u.scales.y!.min ?? 1, u.scales.y!.max ?? 10) } : {}),
            values: (_u, splits) => splits.map((v) => (v == null ? '' : shortNumber(v))),
            size: 44,
            font: '11px system-ui, sans-serif',
          },
        ],
        series,
        legend: { show: false },
        hooks: { setSize: [(u) => placeNames(list, u)] },
      },
      data,
      el,
    );
    coloursRead();
    placeNames(list, plot);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(MIN_WIDTH_PX, el.clientWidth), height: HEIGHT_PX }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [chart, theme]);

  return (
    <div className="cell-chart-box" aria-hidden="true">
      <div ref={box} className="cell-chart" />
      <ol ref={names} className="cell-chart-groups" style={{ gridTemplateColumns: `repeat(${chart.groups.length}, minmax(0, 1fr))` }}>
        {chart.groups.map((g) => (
          <li key={g}>{visibleControls(g)}</li>
        ))}
      </ol>
      <ul className="cell-legend">
        {chart.series.map((s, i) => (
          <li key={s.label}>
            <span className={s.reference ? 'cell-swatch reference' : 'cell-swatch'} style={{ color: `var(${PALETTE[legendIndex(chart, i) % PALETTE.length]!})` }} />
            {s.label}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * Lays the group names under the plotting area, one equal column per
 * group: the x scale runs from -0.5 to groups - 0.5, so each group owns
 * an equal share of the area's width, centred on its bars. Names wrap
 * between words; when even one word does not fit its column, every name
 * is set sideways, so none is cut or runs into the next.
 */
function placeNames(list: HTMLOListElement, plot: uPlot): void {
  list.style.marginLeft = `${plot.over.offsetLeft}px`;
  list.style.width = `${plot.over.offsetWidth}px`;
  // A word wider than its column would be broken letter by letter: the names are then turned on their side, read upwards.
  list.classList.remove('sideways');
  list.classList.toggle('sideways', [...list.children].some((li) => li.scrollWidth > li.clientWidth));
}

/** A series' place among the series of its kind, which picks its colour. */
function legendIndex(chart: BarChart, i: number): number {
  const reference = chart.series[i]!.reference;
  return chart.series.slice(0, i).filter((s) => s.reference === reference).length;
}

/** A log axis from the power of ten below the smallest value to the one above the largest. */
function decades(min: number | null, max: number | null): [number, number] {
  const lo = min !== null && min > 0 ? 10 ** Math.floor(Math.log10(min)) : 1;
  const hi = max !== null && max > 0 ? 10 ** Math.ceil(Math.log10(max)) : 10;
  return [lo, Math.max(hi, lo * 10)];
}

function powersOfTen(min: number, max: number): number[] {
  const out: number[] = [];
  for (let e = Math.round(Math.log10(min)); 10 ** e <= max * 1.0001; e++) out.push(10 ** e);
  return out;
}

/** Reads theme colours as the canvas needs them: CSS variables resolved to rgb() by the browser. */
function colourReader(parent: HTMLElement): { read: (variable: string) => string; done: () => void } {
  const probe = document.createElement('span');
  probe.hidden = true;
  parent.appendChild(probe);
  return {
    read: (variable) => {
      probe.style.color = `var(${variable})`;
      return getComputedStyle(probe).color;
    },
    done: () => probe.remove(),
  };
}

function withAlpha(rgb: string, alpha: number): string {
  const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(rgb);
  return m === null ? rgb : `rgba(${m[1]}, ${m[2]}, ${m[3]}, ${alpha})`;
}

function shortNumber(x: number): string {
  if (x >= 1e6) return `${x / 1e6}M`;
  if (x >= 1e3) return `${x / 1e3}k`;
  return String(Math.round(x * 1000) / 1000);
}
