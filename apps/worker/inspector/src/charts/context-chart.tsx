/**
 * @module charts/context-chart
 * Context tokens per appended message against the raw transcript, with the
 * window, the threshold and the reserve, and each compaction marked by tier
 * (a drop from its tokens before to its tokens after, at the last message it
 * folded in). Each mark is a link to the messages that compaction folded in,
 * and says its figures on focus or hover; the compaction table below the
 * chart gives the same figures as text.
 *
 * Hand-written SVG rather than a charting library: two polylines, three rules
 * and a mark per compaction are about 150 lines, with no library to bundle
 * (the smallest maintained ones weigh 40-50 KiB) and full control over
 * keyboard focus, labels and the data attributes the browser tests read.
 */

import { useRef, useState } from "preact/hooks";
import { formatTokens } from "../format.ts";
import type { CompactionMark, Timeline } from "../model/timeline.ts";
import { routeHash } from "../routing/route.ts";
import { Axes, MARGIN } from "./axes.tsx";
import { ticks } from "./scale.ts";
import { useWidth } from "./use-width.ts";

export interface ContextChartProps {
  /** The session, for the links from each compaction to its messages. */
  sessionId: string;
  timeline: Timeline;
  contextWindow: number;
  trigger: number;
  budget: number;
  lastSeq: number;
}

function describe(mark: CompactionMark): string {
  const saved =
    mark.tokensBefore > 0 ? Math.round((1 - mark.tokensAfter / mark.tokensBefore) * 100) : 0;
  return `Compaction #${mark.id}, tier ${mark.tier} (${mark.trigger}) after message ${mark.seq}: ${formatTokens(mark.tokensBefore)} → ${formatTokens(mark.tokensAfter)} tokens (−${saved}%)`;
}

export function ContextChart(props: ContextChartProps) {
  const ref = useRef<HTMLDivElement>(null);
  const width = useWidth(ref);
  const [focused, setFocused] = useState<CompactionMark | null>(null);
  const { points, marks, rawTotal } = props.timeline;
  const height = Math.round(Math.min(360, Math.max(220, width * 0.42)));
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const lastSeq = Math.max(1, props.lastSeq, ...points.map((p) => p.seq));
  const peak = Math.max(props.contextWindow, ...points.map((p) => Math.max(p.raw, p.context)));
  const yTicks = ticks(peak * 1.04, height < 260 ? 4 : 5);
  const yMax = yTicks.at(-1) ?? peak;
  const xTicks = ticks(lastSeq, width < 480 ? 3 : 6).filter((t) => t <= lastSeq);
  const x = (seq: number) => MARGIN.left + (seq / lastSeq) * plotW;
  const y = (tokens: number) => MARGIN.top + plotH - (tokens / yMax) * plotH;
  const line = (values: ReadonlyArray<[number, number]>) =>
    values.map(([s, t]) => `${x(s).toFixed(1)},${y(t).toFixed(1)}`).join(" ");
  const rule = (tokens: number, kind: string) => (
    <line
      x1={MARGIN.left}
      x2={width - MARGIN.right}
      y1={y(tokens)}
      y2={y(tokens)}
      class={`rule ${kind}`}
    />
  );

  return (
    <figure class="chart">
      <div ref={ref}>
        <svg
          width={width}
          height={height}
          aria-label={`Context tokens per message against the raw transcript (${formatTokens(rawTotal)} tokens), with ${marks.length} compactions`}
          data-raw-total={rawTotal}
          data-last-seq={lastSeq}
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
          {rule(props.contextWindow, "window")}
          {rule(props.trigger, "threshold")}
          {rule(props.budget, "budget")}
          <polyline class="series raw" points={line(points.map((p) => [p.seq, p.raw]))} />
          <polyline class="series context" points={line(points.map((p) => [p.seq, p.context]))} />
          {marks.map((mark) => (
            <a
              key={mark.id}
              href={routeHash({
                view: "session",
                id: props.sessionId,
                tab: "transcript",
                seq: mark.range.fromSeq,
              })}
              class={`mark tier-${mark.tier}`}
              aria-label={`${describe(mark)}; open its messages`}
              data-id={mark.id}
              data-seq={mark.seq}
              data-tier={mark.tier}
              data-tokens-before={mark.tokensBefore}
              data-tokens-after={mark.tokensAfter}
              onFocus={() => setFocused(mark)}
              onBlur={() => setFocused(null)}
              onMouseEnter={() => setFocused(mark)}
              onMouseLeave={() => setFocused(null)}
            >
              <title>{describe(mark)}</title>
              <line
                x1={x(mark.seq)}
                x2={x(mark.seq)}
                y1={y(mark.tokensBefore)}
                y2={y(mark.tokensAfter)}
              />
              <circle cx={x(mark.seq)} cy={y(mark.tokensAfter)} r={4} />
              <circle cx={x(mark.seq)} cy={y(mark.tokensAfter)} r={10} class="hit" />
            </a>
          ))}
        </svg>
      </div>
      <figcaption>
        <ul class="legend">
          <li>
            <span class="swatch context" /> context sent
          </li>
          <li>
            <span class="swatch raw" /> raw transcript
          </li>
          <li>
            <span class="swatch window" /> window
          </li>
          <li>
            <span class="swatch threshold" /> threshold
          </li>
          <li>
            <span class="swatch budget" /> budget (window − reserve)
          </li>
          {[1, 2, 3, 4].map((tier) => (
            <li key={tier}>
              <span class={`swatch tier-${tier}`} /> tier {tier}
            </li>
          ))}
        </ul>
        <p class="muted chart-focus" aria-live="polite">
          {focused === null
            ? "Focus or point at a compaction mark for its figures."
            : describe(focused)}
        </p>
      </figcaption>
    </figure>
  );
}
