import { lazy } from 'react';
import { LaterPart } from '../layout/later-part.js';
import { visibleControls } from '../terminal/sanitize.js';
import { formatFigure, parseBarChart, type BarChart } from './chart-spec.js';

const CellChart = lazy(() => import('./cell-chart.js'));

/**
 * A cell's reports: each chart report as a bar chart with its numbers in
 * a table, every other report as its name and value. All text.
 */
export function CellReports({ reports }: { reports: Readonly<Record<string, unknown>> }) {
  const entries = Object.entries(reports);
  if (entries.length === 0) return null;
  const plain = entries.filter(([, v]) => parseBarChart(v) === null);
  return (
    <div className="cell-reports">
      {entries.map(([name, v]) => {
        const chart = parseBarChart(v);
        return chart === null ? null : <ChartReport key={name} name={name} chart={chart} />;
      })}
      {plain.length !== 0 && (
        <dl className="cell-values" aria-label="Reported values">
          {plain.map(([name, v]) => (
            <div key={name} className="cell-value">
              <dt>{visibleControls(name)}</dt>
              <dd>{visibleControls(shortJson(v))}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}

function ChartReport({ name, chart }: { name: string; chart: BarChart }) {
  return (
    <figure className="cell-figure">
      <LaterPart what="The chart" loading={<div className="cell-chart cell-chart-loading">Drawing the chart…</div>}>
        <CellChart chart={chart} />
      </LaterPart>
      <div className="cell-table-box">
      <table className="cell-table">
        <caption className="visually-hidden">{visibleControls(chart.title || name)}{chart.unit ? ` (${visibleControls(chart.unit)})` : ''}</caption>
        <thead>
          <tr>
            <th scope="col" />
            {chart.series.map((s) => (
              <th key={s.label} scope="col" className={s.reference ? 'reference' : undefined}>
                {visibleControls(s.label)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {chart.groups.map((g, i) => (
            <tr key={g}>
              <th scope="row">{visibleControls(g)}</th>
              {chart.series.map((s) => (
                <td key={s.label} className={s.reference ? 'reference' : undefined}>
                  {formatFigure(s.values[i] ?? null)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      </div>
    </figure>
  );
}

/** A value as one short line of JSON (numbers rounded to what a reader needs). */
function shortJson(v: unknown): string {
  const text = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'number' && !Number.isInteger(x) ? Math.round(x * 1000) / 1000 : x));
  if (text === undefined) return String(v);
  return text.length > 400 ? text.slice(0, 400) + '…' : text;
}
