// The closed-loop plot of docs/autoscaling.md: replicas (desired, current, ready) and load (in-flight
// requests, average KV-cache use) over time, as an SVG, turned into a PNG with rsvg-convert.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

export interface Sample {
  t: number;
  desired: number;
  replicas: number;
  ready: number;
  inFlight: number;
  kvCacheUsage: number;
  loadOn: boolean;
  /** the engine's latest reason for the variant, for diagnosing a failed run */
  reason?: string;
}

const W = 900;
const H = 420;
const M = { l: 60, r: 70, t: 40, b: 50 };

export function plotSvg(samples: Sample[], title: string): string {
  const tMax = Math.max(1, ...samples.map((s) => s.t));
  const rMax = Math.max(2, ...samples.flatMap((s) => [s.desired, s.replicas])) + 1;
  const lMax = Math.max(1, ...samples.map((s) => s.inFlight));
  const x = (t: number) => M.l + (t / tMax) * (W - M.l - M.r);
  const yR = (r: number) => H - M.b - (r / rMax) * (H - M.t - M.b);
  const yL = (v: number) => H - M.b - (v / lMax) * (H - M.t - M.b);
  const step = (get: (s: Sample) => number, y: (v: number) => number) =>
    samples
      .map(
        (s, i) =>
          `${i === 0 ? 'M' : `H${x(s.t).toFixed(1)} V`}${i === 0 ? `${x(s.t).toFixed(1)},` : ''}${y(get(s)).toFixed(1)}`,
      )
      .join(' ');
  const line = (get: (s: Sample) => number, y: (v: number) => number) =>
    samples.map((s, i) => `${i ? 'L' : 'M'}${x(s.t).toFixed(1)},${y(get(s)).toFixed(1)}`).join(' ');
  const loadBands: string[] = [];
  let start: number | undefined;
  for (const s of [...samples, { ...samples.at(-1)!, loadOn: false }]) {
    if (s.loadOn && start === undefined) start = s.t;
    if (!s.loadOn && start !== undefined) {
      loadBands.push(
        `<rect x="${x(start)}" y="${M.t}" width="${x(s.t) - x(start)}" height="${H - M.t - M.b}" fill="#fde9d9"/>`,
      );
      start = undefined;
    }
  }
  const ticksR = Array.from(
    { length: rMax + 1 },
    (_, r) =>
      `<line x1="${M.l - 4}" x2="${W - M.r}" y1="${yR(r)}" y2="${yR(r)}" stroke="#eee"/><text x="${M.l - 8}" y="${yR(r) + 4}" text-anchor="end">${r}</text>`,
  );
  const ticksT = Array.from({ length: 7 }, (_, i) => (i * tMax) / 6).map(
    (t) => `<text x="${x(t)}" y="${H - M.b + 18}" text-anchor="middle">${Math.round(t)}s</text>`,
  );
  const ticksL = [0, 0.5, 1].map(
    (f) => `<text x="${W - M.r + 8}" y="${yL(f * lMax) + 4}">${Math.round(f * lMax)}</text>`,
  );
  const legend = [
    ['#d62728', 'desired (wva_desired_replicas)', '6,3'],
    ['#1f77b4', 'Deployment replicas', ''],
    ['#2ca02c', 'ready replicas', '2,2'],
    ['#ff7f0e', 'requests in flight (right axis)', ''],
    ['#9467bd', 'avg KV-cache use ×max load (right axis)', '1,3'],
  ]
    .map(
      ([c, label, dash], i) =>
        `<line x1="${M.l + 10 + (i % 3) * 270}" x2="${M.l + 40 + (i % 3) * 270}" y1="${H - 12 - (i < 3 ? 8 : -4)}" y2="${H - 12 - (i < 3 ? 8 : -4)}" stroke="${c}" stroke-width="2.5" stroke-dasharray="${dash}"/><text x="${M.l + 46 + (i % 3) * 270}" y="${H - 8 - (i < 3 ? 8 : -4)}">${label}</text>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H + 12}" font-family="DejaVu Sans, sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
${loadBands.join('')}
${ticksR.join('')}${ticksT.join('')}${ticksL.join('')}
<text x="${W / 2}" y="22" text-anchor="middle" font-size="15">${title}</text>
<text x="16" y="${M.t + (H - M.t - M.b) / 2}" transform="rotate(-90 16 ${M.t + (H - M.t - M.b) / 2})" text-anchor="middle">replicas</text>
<path d="${line((s) => s.inFlight, yL)}" fill="none" stroke="#ff7f0e" stroke-width="1.5"/>
<path d="${line((s) => s.kvCacheUsage * lMax, yL)}" fill="none" stroke="#9467bd" stroke-width="1.5" stroke-dasharray="1,3"/>
<path d="${step((s) => s.replicas, yR)}" fill="none" stroke="#1f77b4" stroke-width="3"/>
<path d="${step((s) => s.ready, yR)}" fill="none" stroke="#2ca02c" stroke-width="2" stroke-dasharray="2,2"/>
<path d="${step((s) => s.desired, yR)}" fill="none" stroke="#d62728" stroke-width="2.5" stroke-dasharray="6,3"/>
<line x1="${M.l}" x2="${M.l}" y1="${M.t}" y2="${H - M.b}" stroke="#333"/><line x1="${M.l}" x2="${W - M.r}" y1="${H - M.b}" y2="${H - M.b}" stroke="#333"/>
${legend}
</svg>
`;
}

/** writes `<base>.svg` and, when rsvg-convert is installed, `<base>.png`; returns the PNG path or undefined */
export function writePlot(samples: Sample[], title: string, base: string): string | undefined {
  writeFileSync(`${base}.svg`, plotSvg(samples, title));
  try {
    execFileSync('rsvg-convert', ['-o', `${base}.png`, `${base}.svg`]);
    return `${base}.png`;
  } catch {
    return undefined;
  }
}
