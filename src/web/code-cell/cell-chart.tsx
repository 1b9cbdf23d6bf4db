import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useTheme } from '../theme/use-theme.js';
import { formatFigure, type BarChart } from './chart-spec.js';

/** Each group's bars take this share of the space between two groups. */
const GROUP_WIDTH = 0.8;
const HEIGHT_PX = 240;
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
  const { theme } = useTheme();

  useEffect(() => {
    const el = box.current;
    if (el === null) return;
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
        width: Math.max(200, el.clientWidth),
        height: HEIGHT_PX,
        title: chart.title || undefined,
        cursor: { points: { show: false }, drag: { x: false, y: false } },
        select: { show: false, left: 0, top: 0, width: 0, height: 0 },
        scales: {
          x: { time: false, range: () => [-0.5, groups.length - 0.5] },
          y: chart.log ? { distr: 3, log: 10, range: (_u, min, max) => decades(min, max) } : { range: (_u, _min, max) => [0, max * 1.08] },
        },
        axes: [
          {
            stroke: muted,
            grid: { show: false },
            ticks: { show: false },
            size: 28,
            // Small enough for four group names side by side in the lesson pane's default width.
            font: '11px system-ui, sans-serif',
            splits: () => groups.map((_, i) => i),
            values: (_u, splits) => splits.map((i) => groups[i] ?? ''),
          },
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
      },
      data,
      el,
    );
    coloursRead();
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height: HEIGHT_PX }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [chart, theme]);

  return (
    <div className="cell-chart-box" aria-hidden="true">
      <div ref={box} className="cell-chart" />
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
