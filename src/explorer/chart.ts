/**
 * SVG charts drawn at build time: no client code is needed to see them. Each has axes with
 * dates or values, a legend, and a <title> and <desc> that screen readers announce (role="img").
 * Lines are steps: a rate holds from its snapshot until the next one, and each line's newest
 * value is written at its end.
 *
 * Every chart comes in two layouts, one for wide figures and one for phones, and ChartFigure.astro
 * shows the one that fits the figure (a container query), so that no text is drawn under 10 px on
 * a 390-px screen or in a half-width column. Text sizes are attributes on the SVG, not the site's
 * stylesheet, so the chart keeps them wherever it is shown. The lines are drawn once, in plot units
 * (0–1000 on both axes), and each layout places them with a transform; vector-effect keeps the
 * strokes and dashes their size whatever the scale.
 *
 * Colours are Okabe and Ito's palette, which readers with the common colour-vision deficiencies
 * tell apart, and every line also has its own dash pattern.
 */
export interface LineSeries {
  label: string;
  color: string;
  /** A stroke-dasharray, the second cue beside the colour (absent: solid). */
  dash?: string;
  /** The colour of the value written at the end of the line (default: the line's colour). */
  ink?: string;
  points: { date: string; value: number | null }[];
}

/** Okabe–Ito colours (https://jfly.uni-koeln.de/color/), the ones dark enough for thin lines on white. */
const OKABE_ITO = {
  blue: '#0072B2',
  vermillion: '#D55E00',
  bluishGreen: '#009E73',
  reddishPurple: '#CC79A7',
  orange: '#E69F00',
  black: '#000000',
} as const;

/** Line styles in the order series take them: colour, dash, and a darker ink for the end value where needed. */
export const SERIES_STYLES: readonly Pick<LineSeries, 'color' | 'dash' | 'ink'>[] = [
  { color: OKABE_ITO.blue },
  { color: OKABE_ITO.vermillion, dash: '8 4', ink: '#a84a00' },
  { color: OKABE_ITO.black, dash: '2 3' },
  { color: OKABE_ITO.bluishGreen, dash: '12 3 3 3', ink: '#00704f' },
  { color: OKABE_ITO.reddishPurple, dash: '4 4', ink: '#9a4a7c' },
  { color: OKABE_ITO.orange, dash: '12 5', ink: '#8a5f00' },
];

interface Layout {
  name: 'wide' | 'narrow';
  width: number;
  plotHeight: number;
  left: number;
  right: number;
  bottom: number;
  /** Font size in SVG units: the wide layout is shown 480 px wide or more, the narrow one 280 px or more. */
  font: number;
  dateTicks: number;
}

/** The wide layout is never drawn narrower than 480 px (0.75 of its width), nor the narrow one under 280 px. */
const LAYOUTS: readonly Layout[] = [
  { name: 'wide', width: 640, plotHeight: 210, left: 44, right: 50, bottom: 28, font: 14, dateTicks: 6 },
  { name: 'narrow', width: 360, plotHeight: 220, left: 36, right: 46, bottom: 28, font: 13, dateTicks: 3 },
];
/** Plot units: the shared lines run from 0 to this on both axes. */
const U = 1000;
const INK = '#17202a';
const MUTED = '#4f5a64';

const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const day = (date: string) => Date.parse(`${date}T00:00:00Z`);
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const num = (n: number) => String(Math.round(n * 10) / 10);
/** A rough text width (system-ui digits and lower case average about 0.56 em). */
const textWidth = (text: string, font: number) => text.length * font * 0.56;

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

/** First days of months across the span, every 1, 2, 3, 6 or 12 months so that there are at most `most`. */
function dateTicks(from: number, to: number, most: number): number[] {
  const start = new Date(from);
  const months =
    (new Date(to).getUTCFullYear() - start.getUTCFullYear()) * 12 + new Date(to).getUTCMonth() - start.getUTCMonth();
  const every = [1, 2, 3, 6, 12, 24, 60].find((n) => months / n <= most) ?? 120;
  const ticks: number[] = [];
  for (let m = 1; m <= months + 1; m++) {
    const t = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + m, 1);
    if (t > to) break;
    if ((start.getUTCMonth() + m) % every === 0) ticks.push(t);
  }
  return ticks;
}

const dateLabel = (t: number) => `${MONTHS[new Date(t).getUTCMonth()]} ${new Date(t).getUTCFullYear()}`;
const tickLabel = (v: number) => v.toFixed(v % 1 ? ((v * 10) % 1 ? 2 : 1) : 0);

/** Where the plot sits in a layout, below the legend rows and the unit line. */
interface Frame {
  layout: Layout;
  top: number;
  height: number;
  plotLeft: number;
  plotRight: number;
  plotBottom: number;
}

function frameOf(layout: Layout, legendRows: number, xLabel = false): Frame {
  const row = layout.font + 8;
  const top = 6 + legendRows * row + row;
  return {
    layout,
    top,
    height: top + layout.plotHeight + layout.bottom + (xLabel ? row : 0),
    plotLeft: layout.left,
    plotRight: layout.width - layout.right,
    plotBottom: top + layout.plotHeight,
  };
}

/** The transform that puts plot units (y upwards) into a layout's plot area. */
const placement = (f: Frame) =>
  `matrix(${+((f.plotRight - f.plotLeft) / U).toFixed(4)} 0 0 ${-(f.layout.plotHeight / U).toFixed(4)} ${f.plotLeft} ${f.plotBottom})`;

function svgOf(id: string, f: Frame, title: string, description: string, body: string): string {
  const { layout } = f;
  const own = layout.name === 'wide' ? id : `${id}-${layout.name}`;
  return `<svg class="chart chart-${layout.name}" viewBox="0 0 ${layout.width} ${f.height}" role="img" aria-labelledby="${own}-title ${own}-desc" xmlns="http://www.w3.org/2000/svg"><title id="${own}-title">${escapeXml(title)}</title><desc id="${own}-desc">${escapeXml(description)}</desc>${body}</svg>`;
}

/** Legend entries in rows that fit the layout's width. */
function legendRows(series: Pick<LineSeries, 'label'>[], layout: Layout): number[][] {
  const rows: number[][] = [[]];
  let x = layout.left;
  series.forEach((s, i) => {
    const width = 28 + textWidth(s.label, layout.font) + 14;
    if (x + width > layout.width - 4 && rows.at(-1)!.length > 0) {
      rows.push([]);
      x = layout.left;
    }
    rows.at(-1)!.push(i);
    x += width;
  });
  return rows;
}

function legend(series: LineSeries[], f: Frame, rows: number[][]): string {
  const { layout } = f;
  const row = layout.font + 8;
  const parts: string[] = [];
  rows.forEach((indexes, r) => {
    const y = 6 + r * row + row / 2;
    let x = layout.left;
    for (const i of indexes) {
      const s = series[i]!;
      parts.push(
        `<line x1="${x}" x2="${x + 22}" y1="${y}" y2="${y}" stroke="${s.color}" stroke-width="3"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/><text x="${x + 28}" y="${num(y + layout.font * 0.35)}" class="chart-key">${escapeXml(s.label)}</text>`,
      );
      x += 28 + textWidth(s.label, layout.font) + 14;
    }
  });
  return `<g font-size="${layout.font}" fill="${INK}">${parts.join('')}</g>`;
}

function axes(
  f: Frame,
  xTicks: { at: number; label: string }[],
  yTicks: { at: number; label: string }[],
  yLabel: string,
  xLabel?: string,
): string {
  const { layout, plotLeft, plotRight, plotBottom, top } = f;
  const lines: string[] = [];
  const labels: string[] = [];
  for (const { at, label } of yTicks) {
    lines.push(
      `<line x1="${plotLeft}" x2="${plotRight}" y1="${num(at)}" y2="${num(at)}" class="grid" stroke="#e6eaee"/>`,
    );
    labels.push(
      `<text x="${plotLeft - 5}" y="${num(at + layout.font * 0.35)}" text-anchor="end" class="chart-tick">${escapeXml(label)}</text>`,
    );
  }
  for (const { at, label } of xTicks) {
    lines.push(
      `<line x1="${num(at)}" x2="${num(at)}" y1="${plotBottom}" y2="${plotBottom + 4}" class="axis" stroke="#9aa4ad"/>`,
    );
    labels.push(
      `<text x="${num(at)}" y="${plotBottom + 4 + layout.font}" text-anchor="middle" class="chart-tick">${escapeXml(label)}</text>`,
    );
  }
  lines.push(`<path d="M${plotLeft} ${top}V${plotBottom}H${plotRight}" fill="none" class="axis" stroke="#9aa4ad"/>`);
  labels.push(`<text x="${plotLeft}" y="${top - 8}" class="chart-unit">${escapeXml(yLabel)}</text>`);
  if (xLabel)
    labels.push(
      `<text x="${plotRight}" y="${plotBottom + layout.bottom + layout.font + 2}" text-anchor="end" class="chart-unit">${escapeXml(xLabel)}</text>`,
    );
  return `${lines.join('')}<g font-size="${layout.font}" fill="${MUTED}">${labels.join('')}</g>`;
}

/** Each line's newest value at its end, moved apart so that no two overlap. */
function endLabels(f: Frame, ends: { y: number; text: string; ink: string }[]): string {
  const gap = f.layout.font + 1;
  const placed = ends.map((e) => ({ ...e, at: e.y })).sort((a, b) => a.at - b.at);
  for (let i = 1; i < placed.length; i++) placed[i]!.at = Math.max(placed[i]!.at, placed[i - 1]!.at + gap);
  const overflow = (placed.at(-1)?.at ?? 0) - (f.plotBottom + f.layout.bottom - gap);
  if (overflow > 0) for (const p of placed) p.at -= overflow;
  return `<g font-size="${f.layout.font}" font-weight="600">${placed
    .map(
      (p) =>
        `<text x="${f.plotRight + 5}" y="${num(p.at + f.layout.font * 0.35)}" fill="${p.ink}" class="chart-end">${escapeXml(p.text)}</text>`,
    )
    .join('')}</g>`;
}

export function lineChart(options: {
  id: string;
  title: string;
  description: string;
  series: LineSeries[];
  yLabel: string;
}): string {
  const { id, title, description, series } = options;
  const points = series.flatMap((s) =>
    s.points.filter((p) => p.value !== null).map((p) => ({ t: day(p.date), v: p.value! })),
  );
  if (points.length === 0)
    return LAYOUTS.map((layout) => {
      const f = frameOf(layout, 0);
      return svgOf(
        id,
        f,
        title,
        description,
        `<text x="${layout.width / 2}" y="${f.height / 2}" text-anchor="middle" font-size="${layout.font}" fill="${MUTED}">No data</text>`,
      );
    }).join('');
  let [from, to] = [Math.min(...points.map((p) => p.t)), Math.max(...points.map((p) => p.t))];
  if (from === to) [from, to] = [from - 15 * 86_400_000, to + 15 * 86_400_000];
  const ticks = valueTicks(Math.min(...points.map((p) => p.v)), Math.max(...points.map((p) => p.v)));
  const [low, high] = [ticks[0]!, ticks.at(-1)!];
  const ux = (t: number) => Math.round(((t - from) / (to - from)) * U);
  const uy = (v: number) => Math.round(((v - low) / (high - low)) * U);
  const paths = series.map((s) => {
    let d = '';
    let held: number | undefined; // the y the line holds since its last point, while it is unbroken
    for (const p of s.points) {
      if (p.value === null) {
        if (held !== undefined) d += `H${ux(day(p.date))}`;
        held = undefined;
        continue;
      }
      const [x, y] = [ux(day(p.date)), uy(p.value)];
      if (held === undefined) d += `M${x} ${y}`;
      else if (y !== held) d += `H${x}V${y}`;
      held = y;
    }
    if (held !== undefined) d += `H${U}`;
    return `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''} vector-effect="non-scaling-stroke"><title>${escapeXml(s.label)}</title></path>`;
  });
  const ends = series.flatMap((s) => {
    const last = s.points.at(-1);
    return last && last.value !== null ? [{ value: last.value, ink: s.ink ?? s.color }] : [];
  });
  return LAYOUTS.map((layout) => {
    const rows = legendRows(series, layout);
    const f = frameOf(layout, rows.length);
    const x = (t: number) => f.plotLeft + (ux(t) / U) * (f.plotRight - f.plotLeft);
    const y = (v: number) => f.plotBottom - (uy(v) / U) * layout.plotHeight;
    const defs = layout.name === 'wide' ? `<defs><g id="${id}-lines">${paths.join('')}</g></defs>` : '';
    const body =
      defs +
      axes(
        f,
        dateTicks(from, to, layout.dateTicks).map((t) => ({ at: x(t), label: dateLabel(t) })),
        ticks.map((v) => ({ at: y(v), label: tickLabel(v) })),
        options.yLabel,
      ) +
      `<use href="#${id}-lines" transform="${placement(f)}"/>` +
      endLabels(
        f,
        ends.map((e) => ({ y: y(e.value), text: e.value.toFixed(2), ink: e.ink })),
      ) +
      legend(series, f, rows);
    return svgOf(id, f, title, description, body);
  }).join('');
}

export function scatterChart(options: {
  id: string;
  title: string;
  description: string;
  points: { x: number; y: number; label: string }[];
  xLabel: string;
  yLabel: string;
}): string {
  const { id, title, description } = options;
  if (options.points.length === 0)
    return LAYOUTS.map((layout) => svgOf(id, frameOf(layout, 0, true), title, description, '')).join('');
  const xTicks = valueTicks(0, Math.max(...options.points.map((p) => p.x)));
  const yTicks = valueTicks(Math.min(...options.points.map((p) => p.y)), Math.max(...options.points.map((p) => p.y)));
  const ux = (v: number) => Math.round(((v - xTicks[0]!) / (xTicks.at(-1)! - xTicks[0]!)) * U);
  const uy = (v: number) => Math.round(((v - yTicks[0]!) / (yTicks.at(-1)! - yTicks[0]!)) * U);
  // A dot is a zero-length line with round caps: it stays round under the layouts' unequal scales.
  const dots = options.points.map(
    (p) =>
      `<path d="M${ux(p.x)} ${uy(p.y)}h0" stroke="${OKABE_ITO.blue}" stroke-opacity="0.7" stroke-width="9" stroke-linecap="round" vector-effect="non-scaling-stroke"><title>${escapeXml(p.label)}</title></path>`,
  );
  return LAYOUTS.map((layout) => {
    const f = frameOf(layout, 0, true);
    const x = (v: number) => f.plotLeft + (ux(v) / U) * (f.plotRight - f.plotLeft);
    const y = (v: number) => f.plotBottom - (uy(v) / U) * layout.plotHeight;
    const every = layout.name === 'narrow' && xTicks.length > 4 ? 2 : 1;
    const defs = layout.name === 'wide' ? `<defs><g id="${id}-dots">${dots.join('')}</g></defs>` : '';
    const body =
      defs +
      axes(
        f,
        xTicks.filter((_, i) => i % every === 0).map((v) => ({ at: x(v), label: `$${v}` })),
        yTicks.map((v) => ({ at: y(v), label: String(v) })),
        options.yLabel,
        options.xLabel,
      ) +
      `<use href="#${id}-dots" transform="${placement(f)}"/>`;
    return svgOf(id, f, title, description, body);
  }).join('');
}
