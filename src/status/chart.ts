/**
 * The status page's chart of the window (src/status/figures.ts): one row per dataset, one mark
 * per run at its time, drawn on the server as an inline SVG, so no script is needed to see it.
 * An outcome is told by its colour and by its place too: a good run's mark stands below the row's
 * middle line, a refused or failed run's above it, so the chart reads without colour. Screen
 * readers get its <title> and <desc>; the figures table beside it says the same in numbers.
 */
import type { RunOutcome } from './run-log.ts';
import type { DatasetRunAt } from './figures.ts';

/** The outcome colours of the page's strip and legend (src/pages/status.astro). */
const OUTCOME_COLOURS: Record<RunOutcome, string> = {
  ok: '#1a7f37',
  unchanged: '#8c959f',
  refused: '#bf8700',
  failed: '#b42318',
};

const WIDTH = 760;
const ROW = 44;
const MARK = 14;
const AXIS = 26;
const FONT = 13;
const INK = '#17202a';
const MUTED = '#57606a';
const DAY_MS = 24 * 60 * 60 * 1000;

const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export interface ChartRow {
  label: string;
  runs: readonly DatasetRunAt[];
}

/** The SVG of the window from `from` to `to`, one row per dataset; `desc` is its text alternative. */
export function reliabilityChart(options: {
  rows: readonly ChartRow[];
  from: Date;
  to: Date;
  title: string;
  desc: string;
  /** Tick label of a time (the page says New Zealand dates). */
  dateLabel: (at: Date) => string;
}): string {
  const { rows, from, to } = options;
  const span = Math.max(1, to.getTime() - from.getTime());
  // Each row's label sits above its marks, so the marks take the whole width.
  const x = (at: number) => ((at - from.getTime()) / span) * WIDTH;
  const height = rows.length * ROW + AXIS;
  const parts: string[] = [];
  rows.forEach((row, i) => {
    const top = i * ROW;
    const middle = top + FONT + 6 + MARK;
    parts.push(
      `<text x="0" y="${top + FONT}" font-size="${FONT}" fill="${INK}">${escapeXml(row.label)}</text>`,
      `<line x1="0" x2="${WIDTH}" y1="${middle}" y2="${middle}" stroke="#d0d7de" stroke-width="1"/>`,
    );
    for (const run of row.runs) {
      const bad = run.outcome === 'refused' || run.outcome === 'failed';
      const left = Math.min(WIDTH - 1.5, Math.max(0, x(Date.parse(run.at)) - 0.75)).toFixed(1);
      parts.push(
        `<rect x="${left}" y="${bad ? middle - MARK : middle}" width="1.5" height="${MARK}" fill="${OUTCOME_COLOURS[run.outcome]}"/>`,
      );
    }
  });
  const axisY = rows.length * ROW + FONT + 4;
  for (let day = 0; day * DAY_MS <= span; day += 7) {
    const at = to.getTime() - day * DAY_MS;
    const anchor = day === 0 ? 'end' : x(at) < 40 ? 'start' : 'middle';
    parts.push(
      `<text x="${x(at).toFixed(1)}" y="${axisY}" font-size="${FONT}" fill="${MUTED}" text-anchor="${anchor}">${escapeXml(day === 0 ? 'now' : options.dateLabel(new Date(at)))}</text>`,
    );
  }
  return (
    `<svg class="reliability-chart" viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-labelledby="reliability-chart-title reliability-chart-desc" xmlns="http://www.w3.org/2000/svg">` +
    `<title id="reliability-chart-title">${escapeXml(options.title)}</title>` +
    `<desc id="reliability-chart-desc">${escapeXml(options.desc)}</desc>` +
    `${parts.join('')}</svg>`
  );
}
