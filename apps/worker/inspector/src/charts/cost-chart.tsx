/**
 * @module charts/cost-chart
 * The session's input bill so far, per message, under the model's prompt
 * cache, against sending the whole history every turn under the same cache
 * (issue 19): two cumulative lines over the messages each served turn ended
 * at, on the context chart's axis, so a compaction's cache bust and the
 * cheaper turns after it line up with its mark there. Hand-written SVG like
 * the context chart, with the same series styles.
 */

import { useRef } from "preact/hooks";
import type { CompactionList } from "../api/types.ts";
import { describeBill, describeCacheMisses } from "../model/bill-words.ts";
import { Axes, MARGIN } from "./axes.tsx";
import { ticks } from "./scale.ts";
import { useWidth } from "./use-width.ts";

export interface CostChartProps {
  series: CompactionList["costSeries"];
  bill: CompactionList["bill"];
  lastSeq: number;
}

export function CostChart({ series, bill, lastSeq: last }: CostChartProps) {
  const ref = useRef<HTMLDivElement>(null);
  const misses = describeCacheMisses(series);
  const width = useWidth(ref);
  const height = Math.round(Math.min(300, Math.max(200, width * 0.32)));
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const lastSeq = Math.max(1, last, ...series.map((p) => p.lastSeq));
  const peak = Math.max(1, ...series.map((p) => Math.max(p.costTokens, p.wholeHistoryCostTokens)));
  const yTicks = ticks(peak * 1.04, 4);
  const yMax = yTicks.at(-1) ?? peak;
  const xTicks = ticks(lastSeq, width < 480 ? 3 : 6).filter((t) => t <= lastSeq);
  const x = (seq: number) => MARGIN.left + (seq / lastSeq) * plotW;
  const y = (cost: number) => MARGIN.top + plotH - (cost / yMax) * plotH;
  const line = (pick: (p: CostChartProps["series"][number]) => number) =>
    series.map((p) => `${x(p.lastSeq).toFixed(1)},${y(pick(p)).toFixed(1)}`).join(" ");
  return (
    // The chart's styles are the context chart's (`.chart`), on an inner element, so that
    // `figure.chart` still names the context chart alone.
    <figure class="cost-chart">
      <div ref={ref} class="chart">
        <svg
          width={width}
          height={height}
          aria-label={`Input bill so far per message: ${describeBill(bill)}`}
          data-turns={series.length}
          data-ratio={bill.ratio ?? ""}
          data-basis={bill.basis}
          data-cold-turns={bill.coldTurns}
        >
          <Axes
            width={width}
            height={height}
            yTicks={yTicks}
            xTicks={xTicks}
            x={x}
            y={y}
            xTitle="message (seq)"
          />
          <polyline class="series raw" points={line((p) => p.wholeHistoryCostTokens)} />
          <polyline class="series context" points={line((p) => p.costTokens)} />
        </svg>
      </div>
      <figcaption>
        <ul class="legend">
          <li>
            <span class="swatch context" /> Condense, so far
          </li>
          <li>
            <span class="swatch raw" /> whole history, so far
          </li>
        </ul>
        <p class="muted">
          {describeBill(bill)}. The axis counts uncached input tokens' worth (a cached token read
          costs a fraction of one); dollars are at the catalog's prices.
        </p>
        {misses.length > 0 ? (
          <details class="cache-misses">
            <summary>Cache misses the provider explained ({misses.length})</summary>
            <ul>
              {misses.map((miss) => (
                <li key={miss}>{miss}</li>
              ))}
            </ul>
          </details>
        ) : null}
      </figcaption>
    </figure>
  );
}
