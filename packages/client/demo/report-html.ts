/**
 * @module demo/report-html
 * The demo's report: one self-contained HTML file (inline CSS and SVG, no
 * scripts, no external assets) with a chart of the context sent at each turn
 * next to the raw transcript's growth, the window, and each compaction
 * marked; then the summary and the list of compactions.
 */

export interface TurnPoint {
  turn: number;
  /** Tokens of the context the agent sent at this turn. */
  contextTokens: number;
  /** Tokens of the whole transcript so far (what would be sent without compaction). */
  rawTokens: number;
}

export interface CompactionMark {
  /** The turn before whose model call the compaction became visible. */
  turn: number;
  tier: number;
  tokensBefore: number;
  tokensAfter: number;
  durationMs: number | null;
  trigger: string;
  summarizer: string | null;
}

export interface ReportData {
  title: string;
  source: string;
  origin: string;
  license: string;
  window: number;
  points: TurnPoint[];
  compactions: CompactionMark[];
  summary: Array<[string, string]>;
  generatedAt: string;
}

const WIDTH = 960;
const HEIGHT = 400;
const MARGIN = { left: 72, right: 24, top: 36, bottom: 48 };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function niceStep(max: number, ticks: number): number {
  const raw = max / ticks;
  const power = 10 ** Math.floor(Math.log10(raw));
  const scaled = raw / power;
  return (scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 5 ? 5 : 10) * power;
}

function shortNumber(value: number): string {
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(1)}M`;
  if (value >= 1_000) return `${Math.round(value / 1_000)}k`;
  return String(value);
}

/** The chart as an SVG element. */
export function chartSvg(data: ReportData): string {
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const lastTurn = Math.max(1, ...data.points.map((p) => p.turn));
  const maxTokens =
    Math.max(data.window, ...data.points.map((p) => Math.max(p.rawTokens, p.contextTokens))) * 1.08;
  const yStep = niceStep(maxTokens, 6);
  const yMax = Math.ceil(maxTokens / yStep) * yStep;
  const x = (turn: number) => MARGIN.left + (turn / lastTurn) * plotW;
  const y = (tokens: number) => MARGIN.top + plotH - (tokens / yMax) * plotH;
  const path = (values: Array<[number, number]>) =>
    values
      .map(([t, v], i) => `${i === 0 ? "M" : "L"}${x(t).toFixed(1)},${y(v).toFixed(1)}`)
      .join(" ");

  const parts: string[] = [];
  for (let v = 0; v <= yMax; v += yStep) {
    parts.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(v)}" y2="${y(v)}" class="grid"/>`,
      `<text x="${MARGIN.left - 8}" y="${y(v) + 4}" class="tick" text-anchor="end">${shortNumber(v)}</text>`,
    );
  }
  const xStep = niceStep(lastTurn, 8);
  for (let t = 0; t <= lastTurn; t += xStep) {
    parts.push(
      `<text x="${x(t)}" y="${HEIGHT - MARGIN.bottom + 18}" class="tick" text-anchor="middle">${t}</text>`,
    );
  }
  parts.push(
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 8}" class="axis" text-anchor="middle">turn (model call)</text>`,
    `<text x="16" y="${MARGIN.top + plotH / 2}" class="axis" text-anchor="middle" transform="rotate(-90 16 ${MARGIN.top + plotH / 2})">tokens</text>`,
  );
  // Tier 1 only prunes old tool outputs; tiers 2-4 summarize, so they get the stronger mark.
  let lastLabel = Number.NEGATIVE_INFINITY;
  for (const mark of data.compactions) {
    const cls = mark.tier <= 1 ? "compaction prune" : "compaction";
    parts.push(
      `<line x1="${x(mark.turn)}" x2="${x(mark.turn)}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" class="${cls}"/>`,
    );
    if (x(mark.turn) - lastLabel >= 16) {
      parts.push(
        `<text x="${x(mark.turn) + 2}" y="${MARGIN.top + 10}" class="mark">T${mark.tier}</text>`,
      );
      lastLabel = x(mark.turn);
    }
  }
  parts.push(
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(data.window)}" y2="${y(data.window)}" class="window"/>`,
    `<text x="${WIDTH - MARGIN.right - 4}" y="${y(data.window) - 6}" class="window-label" text-anchor="end">window ${shortNumber(data.window)}</text>`,
    `<path d="${path(data.points.map((p) => [p.turn, p.rawTokens]))}" class="raw"/>`,
    `<path d="${path(data.points.map((p) => [p.turn, p.contextTokens]))}" class="context"/>`,
  );
  const legend: Array<[string, string]> = [
    ["context", "context sent to the model"],
    ["raw", "raw transcript (no compaction)"],
    ["window", "model window"],
    ["compaction", "compaction, tier (pale: tier 1 pruning)"],
  ];
  let lx = MARGIN.left + 4;
  for (const [cls, label] of legend) {
    parts.push(
      `<line x1="${lx}" x2="${lx + 22}" y1="${MARGIN.top - 16}" y2="${MARGIN.top - 16}" class="${cls}"/>`,
      `<text x="${lx + 28}" y="${MARGIN.top - 12}" class="legend">${escapeHtml(label)}</text>`,
    );
    // About 6.6 px per character at 12 px; then a gap before the next entry.
    lx += 28 + Math.ceil(label.length * 6.6) + 24;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="Context tokens per turn">
<style>
.grid{stroke:#e5e7eb;stroke-width:1}
.tick{font:11px system-ui,sans-serif;fill:#6b7280}
.axis{font:12px system-ui,sans-serif;fill:#374151}
.legend{font:12px system-ui,sans-serif;fill:#111827}
.raw{fill:none;stroke:#9ca3af;stroke-width:2;stroke-dasharray:6 4}
.context{fill:none;stroke:#2563eb;stroke-width:2.5}
.window{stroke:#dc2626;stroke-width:1.5;stroke-dasharray:3 3}
.window-label{font:11px system-ui,sans-serif;fill:#dc2626}
.compaction{stroke:#9333ea;stroke-width:1.2;stroke-dasharray:2 3}
.prune{stroke:#d8b4fe;stroke-width:1}
.mark{font:10px system-ui,sans-serif;fill:#9333ea}
</style>
<rect x="0" y="0" width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>
${parts.join("\n")}
</svg>`;
}

export function renderReport(data: ReportData): string {
  const summaryRows = data.summary
    .map(([label, value]) => `<tr><th>${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`)
    .join("\n");
  const compactionRows = data.compactions
    .map(
      (mark, i) =>
        `<tr><td>${i + 1}</td><td>${mark.turn}</td><td>${mark.tier}</td><td>${escapeHtml(mark.trigger)}</td><td>${mark.tokensBefore.toLocaleString("en-US")} → ${mark.tokensAfter.toLocaleString("en-US")}</td><td>${mark.durationMs === null ? "—" : `${mark.durationMs} ms`}</td><td>${escapeHtml(mark.summarizer ?? "—")}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(data.title)}</title>
<style>
body{font:14px/1.5 system-ui,-apple-system,Segoe UI,sans-serif;color:#111827;margin:24px auto;max-width:1000px;padding:0 16px}
h1{font-size:20px;margin:0 0 4px}
.meta{color:#6b7280;margin:0 0 16px;font-size:13px}
table{border-collapse:collapse;margin:8px 0 24px}
th,td{padding:4px 12px;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:top}
th{font-weight:600;color:#374151}
h2{font-size:16px;margin:24px 0 4px}
code{font-size:12px}
</style>
</head>
<body>
<h1>${escapeHtml(data.title)}</h1>
<p class="meta">${escapeHtml(data.source)} transcript <code>${escapeHtml(data.origin)}</code> (${escapeHtml(data.license)}) · ${escapeHtml(data.generatedAt)}</p>
${chartSvg(data)}
<h2>Summary</h2>
<table>
${summaryRows}
</table>
<h2>Compactions</h2>
<table>
<tr><th>#</th><th>turn</th><th>tier</th><th>trigger</th><th>tokens before → after</th><th>took</th><th>summarizer</th></tr>
${compactionRows}
</table>
</body>
</html>
`;
}
