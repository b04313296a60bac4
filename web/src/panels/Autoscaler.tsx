// The autoscaler's decisions over time (uPlot): replicas (desired and current) on one chart, load,
// KV-cache use and queue length on the other. A table of the latest points is there for screen readers.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { AutoscalerPanel, AutoscalerPoint } from '../../../src/cli/dashboard/types.ts';

type Series = {
  label: string;
  pick: (p: AutoscalerPoint) => number | undefined;
  stroke: string;
  scale: string;
  step?: boolean;
};

const REPLICAS: Series[] = [
  { label: 'desired replicas', pick: (p) => p.desired, stroke: '#1f5fbf', scale: 'replicas', step: true },
  { label: 'current replicas', pick: (p) => p.current, stroke: '#2e7d32', scale: 'replicas', step: true },
];
const LOAD: Series[] = [
  {
    label: 'KV-cache use %',
    pick: (p) => (p.kvCache === undefined ? undefined : p.kvCache * 100),
    stroke: '#b3261e',
    scale: 'pct',
  },
  { label: 'queue length', pick: (p) => p.queue, stroke: '#6a3d9a', scale: 'count' },
  { label: 'load (req/s)', pick: (p) => p.load, stroke: '#8a5a00', scale: 'count' },
];

/** uPlot wants strictly ascending x: one point per timestamp (the latest wins), in time order */
function byTime(points: AutoscalerPoint[]): AutoscalerPoint[] {
  const m = new Map<number, AutoscalerPoint>();
  for (const p of points) m.set(p.t, p);
  return [...m.values()].sort((a, b) => a.t - b.t);
}

function Chart({ title, points: raw, series }: { title: string; points: AutoscalerPoint[]; series: Series[] }) {
  const points = byTime(raw);
  const ref = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const present = series.filter((s) => points.some((p) => s.pick(p) !== undefined));
  const data = [
    points.map((p) => p.t / 1000),
    ...present.map((s) => points.map((p) => s.pick(p) ?? null)),
  ] as uPlot.AlignedData;
  const shape = present.map((s) => s.label).join('|');
  // the chart is rebuilt only when its set of series changes; new points go in through setData below
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed by the series shape on purpose
  useEffect(() => {
    if (!ref.current || present.length === 0) return;
    const scales = [...new Set(present.map((s) => s.scale))];
    const opts: uPlot.Options = {
      width: Math.min(900, ref.current.clientWidth || 900),
      height: 220,
      series: [
        {},
        ...present.map((s) => ({
          label: s.label,
          stroke: s.stroke,
          width: 2,
          scale: s.scale,
          ...(s.step ? { paths: uPlot.paths.stepped!({ align: 1 }) } : {}),
        })),
      ],
      axes: [{}, ...scales.map((sc, i) => ({ scale: sc, side: i === 0 ? 3 : 1, grid: { show: i === 0 } }))],
      // a single instant still gets a readable minute of axis around it
      scales: { x: { time: true, range: (_u, min, max) => (max - min < 1 ? [min - 30, max + 30] : [min, max]) } },
    };
    plot.current = new uPlot(opts, data, ref.current);
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape]);
  useEffect(() => {
    plot.current?.setData(data);
  });
  if (present.length === 0) return null;
  return (
    <figure className="chart" data-chart={title}>
      <figcaption>{title}</figcaption>
      <div ref={ref} role="img" aria-label={`${title}: ${present.map((s) => s.label).join(', ')} over time`} />
    </figure>
  );
}

export function AutoscalerChart({ panel }: { panel: AutoscalerPanel }) {
  const last = panel.points.slice(-5).reverse();
  return (
    <section aria-labelledby="h-autoscaler" className="panel">
      <h2 id="h-autoscaler">Autoscaler decisions</h2>
      <p>
        {panel.points.length} points, {panel.source}.{panel.latest && <> Latest: {panel.latest}.</>}
      </p>
      {panel.points.length === 0 ? (
        <p>No decisions yet.</p>
      ) : (
        <>
          <Chart title="Replicas" points={panel.points} series={REPLICAS} />
          <Chart title="Load" points={panel.points} series={LOAD} />
          <table className="latest">
            <caption>Latest decisions</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Current</th>
                <th scope="col">Desired</th>
                <th scope="col">KV-cache</th>
                <th scope="col">Queue</th>
              </tr>
            </thead>
            <tbody>
              {last.map((p) => (
                <tr key={p.t}>
                  <td>{new Date(p.t).toLocaleTimeString()}</td>
                  <td>{p.current ?? '-'}</td>
                  <td>{p.desired ?? '-'}</td>
                  <td>{p.kvCache === undefined ? '-' : `${(p.kvCache * 100).toFixed(0)}%`}</td>
                  <td>{p.queue ?? '-'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
