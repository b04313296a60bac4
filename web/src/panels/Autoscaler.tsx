// The autoscaler's decisions over time (uPlot), as wide as the page: replicas (desired and current) with a
// mark at each scale decision, and KV-cache use and queue length against the thresholds the autoscaler
// applies. The decisions are listed in words below, with the latest points as a table for screen readers. A
// "send load" button (when the dashboard can send load) runs a minute of load so the chart moves.
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type {
  AutoscalerMarker,
  AutoscalerPanel,
  AutoscalerPoint,
  AutoscalerThresholds,
} from '../../../src/cli/dashboard/types.ts';
import { sendLoad } from '../api.ts';
import { Table } from '../Table.tsx';

type Series = {
  label: string;
  pick: (p: AutoscalerPoint) => number | undefined;
  stroke: string;
  scale: string;
  step?: boolean;
  dash?: number[];
};

/** at most one decimal, no trailing zeros: `4.333333333333333` is shown as `4.3` */
export const fmt = (v: number | null | undefined, digits = 1) =>
  v === null || v === undefined || !Number.isFinite(v) ? '-' : String(Number(v.toFixed(digits)));

const REPLICAS: Series[] = [
  { label: 'desired replicas', pick: (p) => p.desired, stroke: '#1f5fbf', scale: 'replicas', step: true },
  { label: 'current replicas', pick: (p) => p.current, stroke: '#2e7d32', scale: 'replicas', step: true },
];

function loadSeries(t: AutoscalerThresholds | undefined): Series[] {
  return [
    {
      label: 'KV-cache use %',
      pick: (p) => (p.kvCache === undefined ? undefined : p.kvCache * 100),
      stroke: '#b3261e',
      scale: 'pct',
    },
    ...(t
      ? [
          {
            label: `KV-cache threshold ${fmt(t.kvCache * 100, 0)}%`,
            pick: () => t.kvCache * 100,
            stroke: '#b3261e',
            scale: 'pct',
            dash: [6, 4],
          },
        ]
      : []),
    { label: 'queue length', pick: (p) => p.queue, stroke: '#6a3d9a', scale: 'count' },
    ...(t
      ? [
          {
            label: `queue threshold ${fmt(t.queue)}`,
            pick: () => t.queue,
            stroke: '#6a3d9a',
            scale: 'count',
            dash: [6, 4],
          },
        ]
      : []),
    { label: 'load (req/s)', pick: (p) => p.load, stroke: '#8a5a00', scale: 'count' },
  ];
}

/** uPlot wants strictly ascending x: one point per timestamp (the latest wins), in time order */
function byTime(points: AutoscalerPoint[]): AutoscalerPoint[] {
  const m = new Map<number, AutoscalerPoint>();
  for (const p of points) m.set(p.t, p);
  return [...m.values()].sort((a, b) => a.t - b.t);
}

/** a dashed vertical line at each scale decision, labelled with its reason (ScaleUp / ScaleDown) */
function markerPlugin(markers: () => AutoscalerMarker[]): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const { ctx, bbox } = u;
        ctx.save();
        ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
        for (const m of markers()) {
          const x = u.valToPos(m.t / 1000, 'x', true);
          if (x < bbox.left || x > bbox.left + bbox.width) continue;
          ctx.strokeStyle = m.reason === 'ScaleUp' ? '#1f5fbf' : '#8a5a00';
          ctx.setLineDash([4, 3]);
          ctx.beginPath();
          ctx.moveTo(x, bbox.top);
          ctx.lineTo(x, bbox.top + bbox.height);
          ctx.stroke();
          ctx.fillStyle = ctx.strokeStyle;
          ctx.fillText(m.reason === 'ScaleUp' ? '▲ up' : '▼ down', x + 3, bbox.top + 12 * devicePixelRatio);
        }
        ctx.restore();
      },
    },
  };
}

/** the width of an element, followed as the window resizes */
function useWidth(ref: React.RefObject<HTMLDivElement | null>): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    if (!ref.current) return;
    const ro = new ResizeObserver(([e]) => setWidth(Math.floor(e!.contentRect.width)));
    ro.observe(ref.current);
    return () => ro.disconnect();
  }, [ref]);
  return width;
}

interface ChartProps {
  title: string;
  points: AutoscalerPoint[];
  series: Series[];
  markers?: AutoscalerMarker[];
}

function Chart({ title, points: raw, series, markers = [] }: ChartProps) {
  const points = byTime(raw);
  const ref = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const markersRef = useRef(markers);
  markersRef.current = markers;
  const width = useWidth(ref);
  const present = series.filter((s) => points.some((p) => s.pick(p) !== undefined));
  const data = [
    points.map((p) => p.t / 1000),
    ...present.map((s) => points.map((p) => s.pick(p) ?? null)),
  ] as uPlot.AlignedData;
  const shape = present.map((s) => s.label).join('|');
  // rebuilt when its set of series changes; new points go in through setData, a new width through setSize
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed by the series shape on purpose
  useEffect(() => {
    if (!ref.current || present.length === 0) return;
    const scales = [...new Set(present.map((s) => s.scale))];
    const opts: uPlot.Options = {
      width: ref.current.clientWidth || 900,
      height: 240,
      plugins: [markerPlugin(() => markersRef.current)],
      series: [
        {},
        ...present.map((s) => ({
          label: s.label,
          stroke: s.stroke,
          width: 2,
          scale: s.scale,
          value: (_u: uPlot, v: number | null) => fmt(v),
          ...(s.dash ? { dash: s.dash, width: 1, points: { show: false } } : {}),
          ...(s.step ? { paths: uPlot.paths.stepped!({ align: 1 }) } : {}),
        })),
      ],
      axes: [
        {},
        ...scales.map((sc, i) => ({
          scale: sc,
          side: i === 0 ? 3 : 1,
          grid: { show: i === 0 },
          values: (_u: uPlot, ticks: number[]) => ticks.map((t) => fmt(t)),
        })),
      ],
      // a single instant still gets a readable minute of axis around it; counts start at zero
      scales: {
        x: { time: true, range: (_u, min, max) => (max - min < 1 ? [min - 30, max + 30] : [min, max]) },
        replicas: { range: (_u, _min, max) => [0, Math.max(2, Math.ceil(max) + 1)] },
      },
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
  useEffect(() => {
    if (plot.current && width > 0) plot.current.setSize({ width, height: 240 });
  }, [width]);
  if (present.length === 0) return null;
  const last = points.at(-1);
  return (
    <figure className="chart" data-chart={title} data-points={points.length}>
      <figcaption>{title}</figcaption>
      <div
        ref={ref}
        className="chart-area"
        role="img"
        aria-label={`${title}: ${present.map((s) => `${s.label}${last && s.pick(last) !== undefined ? ` ${fmt(s.pick(last))}` : ''}`).join(', ')}`}
      />
    </figure>
  );
}

function LoadButton({ resourceKey, until }: { resourceKey: string; until?: number }) {
  const [message, setMessage] = useState<string>();
  const running = until !== undefined && until > Date.now();
  const send = async () => {
    const r = await sendLoad(resourceKey);
    setMessage(r.status === 202 ? undefined : (r.body.error ?? `the dashboard answered ${r.status}`));
  };
  return (
    <p className="load">
      <button type="button" className="more" onClick={() => void send()} disabled={running}>
        Send load for a minute
      </button>{' '}
      <span role="status">
        {running
          ? `Sending load until ${new Date(until).toLocaleTimeString()}: watch the replicas go up, then back down after it ends.`
          : (message ?? '14 clients for 60 s, as `modelplane load` would send them.')}
      </span>
    </p>
  );
}

export function AutoscalerChart({ panel, resourceKey }: { panel: AutoscalerPanel; resourceKey: string }) {
  const last = panel.points.slice(-5).reverse();
  const decisions = panel.markers.slice(-8).reverse();
  return (
    <section aria-labelledby="h-autoscaler" className="panel autoscaler">
      <h2 id="h-autoscaler">Autoscaler decisions</h2>
      <p>
        {panel.points.length} points, {panel.source}.{panel.latest && <> Latest: {panel.latest}.</>}{' '}
        {panel.thresholds
          ? `Thresholds: KV-cache ${fmt(panel.thresholds.kvCache * 100, 0)}%, queue ${fmt(panel.thresholds.queue)} (${panel.thresholds.source}).`
          : 'The saturation thresholds are not visible to the dashboard.'}
      </p>
      {panel.canSendLoad && (
        <LoadButton resourceKey={resourceKey} {...(panel.loadUntil ? { until: panel.loadUntil } : {})} />
      )}
      {panel.points.length === 0 ? (
        <p>No decisions yet.</p>
      ) : (
        <>
          <Chart title="Replicas" points={panel.points} series={REPLICAS} markers={panel.markers} />
          <Chart title="Load" points={panel.points} series={loadSeries(panel.thresholds)} markers={panel.markers} />
          <h3>Scale decisions</h3>
          {decisions.length === 0 ? (
            <p>No scale decision yet.</p>
          ) : (
            <ul className="decisions">
              {decisions.map((m) => (
                <li key={`${m.t}-${m.message}`}>
                  <strong>
                    {new Date(m.t).toLocaleTimeString()} {m.reason}
                  </strong>
                  : {m.message}
                </li>
              ))}
            </ul>
          )}
          <Table
            className="latest"
            caption="Latest decisions"
            columns={['Time', 'Current', 'Desired', 'KV-cache', 'Queue']}
          >
            {last.map((p) => (
              <tr key={p.t}>
                <td>{new Date(p.t).toLocaleTimeString()}</td>
                <td>{p.current ?? '-'}</td>
                <td>{p.desired ?? '-'}</td>
                <td>{p.kvCache === undefined ? '-' : `${fmt(p.kvCache * 100, 0)}%`}</td>
                <td>{fmt(p.queue)}</td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </section>
  );
}
