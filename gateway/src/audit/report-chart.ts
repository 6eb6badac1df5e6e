/**
 * The chart of legacy calls over time: stacked bars per bucket, one colour
 * per operation, drawn as inline SVG so the page needs nothing from outside
 * (its Content-Security-Policy allows no scripts, fonts or remote images).
 */
import type { Series } from './report.ts';

/** Escapes text for HTML and SVG content and attribute values alike. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

/** Okabe–Ito: told apart by readers with the common colour-vision deficiencies. */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#7F6A00', '#555555'] as const;

const W = 960;
const H = 300;
const M = { left: 56, right: 16, top: 16, bottom: 44 };
const MAX_LABELS = 8;

export interface Band {
  readonly name: string;
  readonly colour: string;
  readonly total: number;
  readonly counts: readonly number[];
}

/** One band per operation; past the palette the quietest ones share a last band, so colours stay distinct. */
export function bands(series: Series): Band[] {
  const kept = series.operations.length > PALETTE.length ? series.operations.slice(0, PALETTE.length - 1) : series.operations;
  const out: Band[] = kept.map((op, i) => ({ name: op.operation, colour: PALETTE[i]!, total: op.total, counts: op.counts }));
  const rest = series.operations.slice(kept.length);
  if (rest.length > 0) {
    const counts = series.buckets.map((_, i) => rest.reduce((n, op) => n + op.counts[i]!, 0));
    out.push({ name: `${rest.length} other operations`, colour: PALETTE[PALETTE.length - 1]!, total: rest.reduce((n, op) => n + op.total, 0), counts });
  }
  return out;
}

/** A round step (1, 2 or 5 times a power of ten) giving about four gridlines. */
export function niceStep(max: number): number {
  if (max <= 4) return 1;
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  return step;
}

function bucketLabel(iso: string, bucket: Series['bucket']): string {
  return bucket === 'day' ? iso.slice(0, 10) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

const fmt = (n: number): string => String(Math.round(n * 10) / 10);

export function renderChart(series: Series): string {
  if (series.buckets.length === 0) return '<p class="empty">No legacy calls in this range.</p>';
  const all = bands(series);
  const n = series.buckets.length;
  const totals = series.buckets.map((_, i) => all.reduce((s, b) => s + b.counts[i]!, 0));
  const step = niceStep(Math.max(1, ...totals));
  const top = Math.ceil(Math.max(1, ...totals) / step) * step;
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const slot = pw / n;
  const bar = slot >= 4 ? slot * 0.8 : slot;
  const y = (v: number): number => M.top + ph - (v / top) * ph;
  const parts: string[] = [];
  for (let v = 0; v <= top; v += step) {
    parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${fmt(y(v))}" y2="${fmt(y(v))}" stroke="#d0d7de" stroke-width="1"/>`);
    parts.push(`<text x="${M.left - 8}" y="${fmt(y(v) + 4)}" text-anchor="end" class="tick">${v}</text>`);
  }
  series.buckets.forEach((start, i) => {
    let base = 0;
    const x = M.left + i * slot + (slot - bar) / 2;
    for (const band of all) {
      const count = band.counts[i]!;
      if (count === 0) continue;
      const label = `${band.name}: ${count} ${count === 1 ? 'call' : 'calls'} (${bucketLabel(start, series.bucket)})`;
      parts.push(`<rect x="${fmt(x)}" y="${fmt(y(base + count))}" width="${fmt(bar)}" height="${fmt(y(base) - y(base + count))}" fill="${band.colour}"><title>${escapeHtml(label)}</title></rect>`);
      base += count;
    }
  });
  const every = Math.max(1, Math.ceil(n / MAX_LABELS));
  for (let i = 0; i < n; i += every) {
    const x = M.left + i * slot + slot / 2;
    parts.push(`<line x1="${fmt(x)}" x2="${fmt(x)}" y1="${M.top + ph}" y2="${M.top + ph + 5}" stroke="#57606a"/>`);
    parts.push(`<text x="${fmt(x)}" y="${M.top + ph + 20}" text-anchor="middle" class="tick">${escapeHtml(bucketLabel(series.buckets[i]!, series.bucket))}</text>`);
  }
  parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${M.top + ph}" y2="${M.top + ph}" stroke="#57606a"/>`);
  const unit = series.bucket === 'day' ? 'day' : 'hour';
  const title = `Legacy calls per ${unit} by operation, ${series.buckets[0]!.slice(0, 10)} to ${series.buckets[n - 1]!.slice(0, 10)} (UTC)`;
  const legend = all.map((b) => `<li><span class="swatch" style="background:${b.colour}"></span>${escapeHtml(b.name)} <span class="muted">(${b.total})</span></li>`).join('');
  return `<figure class="chart">
<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-labelledby="chart-title" xmlns="http://www.w3.org/2000/svg">
<title id="chart-title">${escapeHtml(title)}</title>
${parts.join('\n')}
<text x="14" y="${M.top + ph / 2}" transform="rotate(-90 14 ${M.top + ph / 2})" text-anchor="middle" class="tick">calls per ${unit}</text>
</svg>
<figcaption><ul class="legend">${legend}</ul><p class="muted">${escapeHtml(title)}</p></figcaption>
</figure>`;
}
