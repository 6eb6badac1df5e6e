/**
 * The picture of `npm run bench`: one small horizontal bar chart per figure
 * the issues ask for, each measured beside its baseline and against its goal,
 * drawn as a self-contained SVG (no fonts, scripts or remote images) that
 * renders wherever BENCHMARKS.md is read.
 */

export interface Panel {
  /** The bench section the panel comes from (`search`, `gateway`, ...): a rerun of one section replaces its panels. */
  readonly section: string;
  readonly title: string;
  readonly unit: string;
  readonly better: 'lower' | 'higher';
  /** Names of the bars in every group, in drawing order; the first is the baseline. */
  readonly series: readonly string[];
  readonly groups: ReadonlyArray<{ readonly label: string; readonly values: ReadonlyArray<number | null> }>;
  readonly goal?: { readonly value: number; readonly label: string };
}

const WIDTH = 1060;
const PANEL_WIDTH = 500;
const GAP = 40;
const LABEL_WIDTH = 190;
const BAR = 12;
const COLORS = ['#8c959f', '#0969da', '#1a7f37', '#bf8700'];

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function format(value: number): string {
  if (value >= 1000) return Math.round(value).toLocaleString('en-US');
  return value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** A panel's drawing and its height, at the origin. */
function drawPanel(panel: Panel): { svg: string; height: number } {
  const perGroup = panel.series.length * (BAR + 3) + 12;
  const top = 52;
  const height = top + panel.groups.length * perGroup + 20;
  const values = panel.groups.flatMap((g) => g.values.filter((v): v is number => v !== null && Number.isFinite(v)));
  const max = Math.max(...values, panel.goal?.value ?? 0) * 1.18 || 1;
  const plotWidth = PANEL_WIDTH - LABEL_WIDTH - 10;
  const x = (v: number): number => LABEL_WIDTH + (v / max) * plotWidth;
  const parts: string[] = [
    `<rect width="${PANEL_WIDTH}" height="${height}" rx="8" fill="#f6f8fa" stroke="#d1d9e0"/>`,
    `<text x="14" y="22" font-size="14" font-weight="600">${escapeXml(panel.title)}</text>`,
    `<text x="14" y="40" font-size="11" fill="#59636e">${escapeXml(`${panel.unit}, ${panel.better} is better`)}</text>`,
  ];
  // The legend is laid out from the right edge, each entry as wide as its text (about 6 px a character).
  let lx = PANEL_WIDTH - 14;
  [...panel.series].reverse().forEach((name, r) => {
    const i = panel.series.length - 1 - r;
    lx -= 14 + name.length * 6 + 10;
    parts.push(`<rect x="${lx}" y="31" width="10" height="10" fill="${COLORS[i % COLORS.length]}"/>`, `<text x="${lx + 14}" y="40" font-size="10" fill="#59636e">${escapeXml(name)}</text>`);
  });
  panel.groups.forEach((group, g) => {
    const y0 = top + g * perGroup;
    parts.push(`<text x="${LABEL_WIDTH - 8}" y="${y0 + (panel.series.length * (BAR + 3)) / 2 + 4}" font-size="11" text-anchor="end">${escapeXml(group.label)}</text>`);
    group.values.forEach((value, i) => {
      if (value === null || !Number.isFinite(value)) return;
      const y = y0 + i * (BAR + 3);
      const w = Math.max(1, x(value) - LABEL_WIDTH);
      parts.push(`<rect x="${LABEL_WIDTH}" y="${y}" width="${w.toFixed(1)}" height="${BAR}" fill="${COLORS[i % COLORS.length]}"><title>${escapeXml(`${group.label}, ${panel.series[i]}: ${format(value)} ${panel.unit}`)}</title></rect>`);
      parts.push(`<text x="${(LABEL_WIDTH + w + 4).toFixed(1)}" y="${y + BAR - 2}" font-size="10">${format(value)}</text>`);
    });
  });
  if (panel.goal) {
    const gx = x(panel.goal.value).toFixed(1);
    parts.push(`<line x1="${gx}" y1="${top - 6}" x2="${gx}" y2="${height - 14}" stroke="#cf222e" stroke-dasharray="4 3"/>`, `<text x="${gx}" y="${height - 4}" font-size="10" fill="#cf222e" text-anchor="middle">${escapeXml(panel.goal.label)}</text>`);
  }
  return { svg: parts.join(''), height };
}

export function renderPlot(panels: readonly Panel[], caption: string): string {
  const drawn = panels.map(drawPanel);
  const placed: string[] = [];
  let y = 44;
  for (let i = 0; i < drawn.length; i += 2) {
    const row = drawn.slice(i, i + 2);
    row.forEach((p, j) => placed.push(`<g transform="translate(${10 + j * (PANEL_WIDTH + GAP)},${y})">${p.svg}</g>`));
    y += Math.max(...row.map((p) => p.height)) + 16;
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${y}" viewBox="0 0 ${WIDTH} ${y}" font-family="system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif" fill="#1f2328">`,
    `<rect width="${WIDTH}" height="${y}" fill="#fff"/>`,
    `<text x="10" y="26" font-size="17" font-weight="650">${escapeXml(caption)}</text>`,
    ...placed,
    '</svg>',
    '',
  ].join('\n');
}
