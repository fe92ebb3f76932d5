/**
 * SVG charts drawn at build time: no client code is needed to see them. Each has axes with
 * dates or values, a legend, and a <title> and <desc> that screen readers announce (role="img").
 * Lines are steps: a rate holds from its snapshot until the next one.
 */
export interface LineSeries {
  label: string;
  color: string;
  dashed?: boolean;
  points: { date: string; value: number | null }[];
}

export const PALETTE = ['#0b6e4f', '#1f5fae', '#b5442a', '#7b3fa0', '#b58900', '#2a8c8c', '#a8326e', '#555f6b'];

const W = 640;
const H = 280;
const M = { left: 46, right: 14, top: 34, bottom: 30 };
const LEGEND_ROW = 18;
const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const day = (date: string) => Date.parse(`${date}T00:00:00Z`);
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Round tick steps: 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5 … so that there are 4–7 ticks. */
function valueTicks(min: number, max: number): number[] {
  if (min === max) [min, max] = [min - 0.5, max + 0.5];
  const steps = [0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000];
  const step = steps.find((s) => (max - min) / s <= 6) ?? 1000;
  const ticks: number[] = [];
  for (let t = Math.floor(min / step) * step; t <= Math.ceil(max / step) * step + 1e-9; t += step)
    ticks.push(Math.round(t * 1000) / 1000);
  return ticks;
}

/** First days of months across the span, every 1, 2, 3, 6 or 12 months so that there are at most 7. */
function dateTicks(from: number, to: number): number[] {
  const start = new Date(from);
  const months =
    (new Date(to).getUTCFullYear() - start.getUTCFullYear()) * 12 + new Date(to).getUTCMonth() - start.getUTCMonth();
  const every = [1, 2, 3, 6, 12, 24, 60].find((n) => months / n <= 6) ?? 120;
  const ticks: number[] = [];
  for (let m = 1; m <= months + 1; m++) {
    const t = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + m, 1);
    if (t > to) break;
    if ((start.getUTCMonth() + m) % every === 0) ticks.push(t);
  }
  return ticks;
}

const dateLabel = (t: number) => `${MONTHS[new Date(t).getUTCMonth()]} ${new Date(t).getUTCFullYear()}`;

/** The svg element; `extraTop` makes room above the plot for a legend of several rows. */
function frame(id: string, title: string, description: string, body: string, extraTop = 0): string {
  return `<svg class="chart" viewBox="0 ${-extraTop} ${W} ${H + extraTop}" role="img" aria-labelledby="${id}-title ${id}-desc" xmlns="http://www.w3.org/2000/svg"><title id="${id}-title">${escapeXml(title)}</title><desc id="${id}-desc">${escapeXml(description)}</desc>${body}</svg>`;
}

/** Legend entries laid out in rows that fit the width, upwards from just above the plot. */
function legend(series: LineSeries[]): { svg: string; extraTop: number } {
  const rows: { series: LineSeries; x: number }[][] = [[]];
  let x = M.left + 70;
  for (const s of series) {
    const width = 30 + s.label.length * 7;
    if (x + width > W - M.right && rows.at(-1)!.length > 0) {
      rows.push([]);
      x = M.left + 70;
    }
    rows.at(-1)!.push({ series: s, x });
    x += width;
  }
  const svg = rows
    .map((row, r) => {
      const y = M.top - 24 - (rows.length - 1 - r) * LEGEND_ROW;
      return row
        .map(
          ({ series: s, x: at }) =>
            `<line x1="${at}" x2="${at + 18}" y1="${y}" y2="${y}" stroke="${s.color}" stroke-width="3"${s.dashed ? ' stroke-dasharray="5 3"' : ''}/><text x="${at + 22}" y="${y + 4}" class="legend">${escapeXml(s.label)}</text>`,
        )
        .join('');
    })
    .join('');
  return { svg, extraTop: (rows.length - 1) * LEGEND_ROW };
}

function axes(
  xTicks: { at: number; label: string }[],
  yTicks: { at: number; label: string }[],
  yLabel: string,
  xLabel?: string,
): string {
  const parts: string[] = [];
  for (const { at, label } of yTicks) {
    parts.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${at}" y2="${at}" class="grid"/><text x="${M.left - 6}" y="${at + 4}" text-anchor="end" class="tick">${escapeXml(label)}</text>`,
    );
  }
  for (const { at, label } of xTicks) {
    parts.push(
      `<line x1="${at}" x2="${at}" y1="${H - M.bottom}" y2="${H - M.bottom + 4}" class="axis"/><text x="${at}" y="${H - M.bottom + 16}" text-anchor="middle" class="tick">${escapeXml(label)}</text>`,
    );
  }
  parts.push(
    `<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" class="axis"/><line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}" class="axis"/>`,
  );
  parts.push(`<text x="${M.left}" y="${M.top - 20}" class="unit">${escapeXml(yLabel)}</text>`);
  if (xLabel)
    parts.push(`<text x="${W - M.right}" y="${H - 2}" text-anchor="end" class="unit">${escapeXml(xLabel)}</text>`);
  return parts.join('');
}

export function lineChart(options: {
  id: string;
  title: string;
  description: string;
  series: LineSeries[];
  yLabel: string;
}): string {
  const points = options.series.flatMap((s) =>
    s.points.filter((p) => p.value !== null).map((p) => ({ t: day(p.date), v: p.value! })),
  );
  if (points.length === 0)
    return frame(
      options.id,
      options.title,
      options.description,
      `<text x="${W / 2}" y="${H / 2}" text-anchor="middle" class="tick">No data</text>`,
    );
  let [from, to] = [Math.min(...points.map((p) => p.t)), Math.max(...points.map((p) => p.t))];
  if (from === to) [from, to] = [from - 15 * 86_400_000, to + 15 * 86_400_000];
  const ticks = valueTicks(Math.min(...points.map((p) => p.v)), Math.max(...points.map((p) => p.v)));
  const [low, high] = [ticks[0]!, ticks.at(-1)!];
  const x = (t: number) => M.left + ((t - from) / (to - from)) * (W - M.left - M.right);
  const y = (v: number) => H - M.bottom - ((v - low) / (high - low)) * (H - M.top - M.bottom);
  const lines = options.series.map((s) => {
    let d = '';
    let previous: { x: number; y: number } | undefined;
    for (const p of s.points) {
      if (p.value === null) {
        previous = undefined;
        continue;
      }
      const at = { x: x(day(p.date)), y: y(p.value) };
      d += previous ? ` H${at.x.toFixed(1)} V${at.y.toFixed(1)}` : ` M${at.x.toFixed(1)} ${at.y.toFixed(1)}`;
      previous = at;
    }
    if (previous) d += ` H${(W - M.right).toFixed(1)}`;
    return `<path d="${d.trim()}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ''}><title>${escapeXml(s.label)}</title></path>`;
  });
  const key = legend(options.series);
  const body = axes(
    dateTicks(from, to).map((t) => ({ at: x(t), label: dateLabel(t) })),
    ticks.map((v) => ({ at: y(v), label: v.toFixed(v % 1 ? ((v * 10) % 1 ? 2 : 1) : 0) })),
    options.yLabel,
  );
  return frame(
    options.id,
    options.title,
    options.description,
    `${body}${lines.join('')}<g class="legend-box">${key.svg}</g>`,
    key.extraTop,
  );
}

export function scatterChart(options: {
  id: string;
  title: string;
  description: string;
  points: { x: number; y: number; label: string }[];
  xLabel: string;
  yLabel: string;
}): string {
  if (options.points.length === 0) return frame(options.id, options.title, options.description, '');
  const xTicks = valueTicks(0, Math.max(...options.points.map((p) => p.x)));
  const yTicks = valueTicks(Math.min(...options.points.map((p) => p.y)), Math.max(...options.points.map((p) => p.y)));
  const x = (v: number) => M.left + ((v - xTicks[0]!) / (xTicks.at(-1)! - xTicks[0]!)) * (W - M.left - M.right);
  const y = (v: number) => H - M.bottom - ((v - yTicks[0]!) / (yTicks.at(-1)! - yTicks[0]!)) * (H - M.top - M.bottom);
  const dots = options.points.map(
    (p) =>
      `<circle cx="${x(p.x).toFixed(1)}" cy="${y(p.y).toFixed(1)}" r="4.5" fill="${PALETTE[1]}" fill-opacity="0.7"><title>${escapeXml(p.label)}</title></circle>`,
  );
  const body = axes(
    xTicks.map((v) => ({ at: x(v), label: `$${v}` })),
    yTicks.map((v) => ({ at: y(v), label: String(v) })),
    options.yLabel,
    options.xLabel,
  );
  return frame(options.id, options.title, options.description, body + dots.join(''));
}
