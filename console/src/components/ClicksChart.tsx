/**
 * "Clicks over time": a uPlot line chart and, as its text alternative, the same series as a table.
 *
 * uPlot, because of the three maintained libraries that fit (uPlot, ECharts, Chart.js) it is by far
 * the smallest (about 20 KB gzipped, against roughly 70 KB for Chart.js with its time scale and
 * 300 KB+ for ECharts), is fast on canvas, has no dependencies, and draws time series, which is
 * all this page needs: the link page's route chunk stays well inside the console's JS budget.
 * It sets styles through the CSSOM only, which the console's Content-Security-Policy allows.
 */
import { useEffect, useId, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { AnalyticsData } from '@linkservice/sdk';
import { numberFormat } from '../format';

type Point = AnalyticsData['timeseries'][number];

const HOUR = 3600;
const DAY = 24 * HOUR;

const SERIES = [
  { label: 'Human clicks', stroke: '#1d4ed8', value: (p: Point) => p.humanClicks },
  { label: 'Bot clicks', stroke: '#b45309', value: (p: Point) => p.botClicks },
  { label: 'Unique visitors', stroke: '#047857', value: (p: Point) => p.uniqueVisitors },
] as const;

const Chart = ({ points, hourly }: { points: Point[]; hourly: boolean }) => {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const data: uPlot.AlignedData = [
      points.map((p) => Date.parse(p.bucketStart) / 1000),
      ...SERIES.map((s) => points.map(s.value)),
    ];
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 320),
        height: 260,
        legend: { show: true, live: false },
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: (_u, _min, max) => [0, Math.max(max, 1)] } },
        axes: [
          // Ticks on whole buckets only: hours for 24h, days (or weeks, months) for the longer ranges.
          {
            values: hourly ? '{HH}:{mm}' : '{MMM} {D}',
            incrs: hourly
              ? [HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR]
              : [DAY, 2 * DAY, 7 * DAY, 14 * DAY, 28 * DAY],
          },
          { values: (_u, ticks) => ticks.map((v) => (Number.isInteger(v) ? numberFormat.format(v) : '')) },
        ],
        series: [{}, ...SERIES.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, points: { show: false } }))],
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => {
      plot.setSize({ width: Math.max(el.clientWidth, 320), height: 260 });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [points, hourly]);
  // The canvas says nothing to assistive technology: the table below is its text alternative.
  return <div ref={box} className="chart" aria-hidden="true" />;
};

export const ClicksChart = ({ points, hourly }: { points: Point[]; hourly: boolean }) => {
  const captionId = useId();
  const total = points.reduce((sum, p) => sum + p.totalClicks, 0);
  const peak = points.reduce<Point | undefined>(
    (best, p) => (!best || p.totalClicks > best.totalClicks ? p : best),
    undefined,
  );
  return (
    <figure className="panel figure" aria-labelledby={captionId}>
      <figcaption id={captionId} className="panel-title">
        Clicks over time
      </figcaption>
      <p className="help">
        {numberFormat.format(total)} clicks over {points.length} {hourly ? 'hours' : 'days'}
        {peak && peak.totalClicks > 0 ? `; the most, ${numberFormat.format(peak.totalClicks)}, in ${peak.label}` : ''}.
      </p>
      <Chart points={points} hourly={hourly} />
      <details className="chart-data" open>
        <summary>Clicks over time as a table</summary>
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Clicks over time, data">
          <table aria-label="Clicks over time, data">
            <thead>
              <tr>
                <th scope="col">{hourly ? 'Hour' : 'Day'}</th>
                <th scope="col" className="num">
                  Human clicks
                </th>
                <th scope="col" className="num">
                  Bot clicks
                </th>
                <th scope="col" className="num">
                  Total clicks
                </th>
                <th scope="col" className="num">
                  Unique visitors
                </th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr key={p.bucketStart}>
                  <th scope="row">
                    <time dateTime={p.bucketStart}>{p.label}</time>
                  </th>
                  <td className="num">{numberFormat.format(p.humanClicks)}</td>
                  <td className="num">{numberFormat.format(p.botClicks)}</td>
                  <td className="num">{numberFormat.format(p.totalClicks)}</td>
                  <td className="num">{numberFormat.format(p.uniqueVisitors)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
};
