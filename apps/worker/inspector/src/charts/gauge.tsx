/**
 * @module charts/gauge
 * The context against its limits as one bar: the window is the whole track,
 * the context fills it (split by part when the composition is known), and
 * ticks mark where a compaction triggers (threshold) and where the reserve
 * begins (window − reserve, past which a request waits for one).
 * Hand-written SVG: a few rectangles and lines, themed by CSS classes.
 */

import { useRef } from "preact/hooks";
import { formatShare, formatTokens } from "../format.ts";
import { PART_LABELS, type PartName } from "../model/composition.ts";
import { useWidth } from "./use-width.ts";

export interface GaugeProps {
  tokens: number;
  contextWindow: number;
  trigger: number;
  budget: number;
  warningLevel: string;
  /** The context by part; drawn stacked, scaled so together they fill `tokens`. */
  segments?: ReadonlyArray<{ part: PartName; tokens: number }>;
}

const HEIGHT = 28;

export function Gauge(props: GaugeProps) {
  const ref = useRef<HTMLDivElement>(null);
  const width = useWidth(ref);
  const scale = (tokens: number) =>
    (Math.min(tokens, props.contextWindow) / props.contextWindow) * width;
  const segmentTotal = (props.segments ?? []).reduce((sum, s) => sum + s.tokens, 0);
  let x = 0;
  const fills =
    props.segments !== undefined && segmentTotal > 0
      ? props.segments
          .filter((s) => s.tokens > 0)
          .map((segment) => {
            const w = scale((segment.tokens / segmentTotal) * props.tokens);
            const rect = (
              <rect
                key={segment.part}
                x={x}
                width={w}
                height={HEIGHT}
                class={`part-${segment.part}`}
              />
            );
            x += w;
            return rect;
          })
      : [
          <rect
            key="context"
            width={scale(props.tokens)}
            height={HEIGHT}
            class={`fill level-${props.warningLevel}`}
          />,
        ];
  const label = `${formatTokens(props.tokens)} of ${formatTokens(props.contextWindow)} tokens (${formatShare(props.tokens, props.contextWindow)}); compaction triggers at ${formatTokens(props.trigger)}, the reserve starts at ${formatTokens(props.budget)}`;
  return (
    <figure class="gauge" data-tokens={props.tokens} data-window={props.contextWindow}>
      <div ref={ref} class="gauge-track">
        <svg width={width} height={HEIGHT + 14} role="img" aria-label={label}>
          <rect width={width} height={HEIGHT} class="track" />
          {fills}
          <line
            x1={scale(props.trigger)}
            x2={scale(props.trigger)}
            y1={0}
            y2={HEIGHT + 6}
            class="tick threshold"
          />
          <line
            x1={scale(props.budget)}
            x2={scale(props.budget)}
            y1={0}
            y2={HEIGHT + 6}
            class="tick budget"
          />
        </svg>
      </div>
      <figcaption>
        <strong class="gauge-tokens">{formatTokens(props.tokens)}</strong> of{" "}
        {formatTokens(props.contextWindow)} tokens ({formatShare(props.tokens, props.contextWindow)}
        ) · <span class="key threshold">compaction at {formatTokens(props.trigger)}</span> ·{" "}
        <span class="key budget">
          budget {formatTokens(props.budget)} (window − reserve of{" "}
          {formatTokens(props.contextWindow - props.budget)})
        </span>
        {props.segments === undefined ? null : (
          <ul class="legend">
            {props.segments
              .filter((segment) => segment.tokens > 0)
              .map((segment) => (
                <li key={segment.part}>
                  <span class={`swatch part-${segment.part}`} /> {PART_LABELS[segment.part]}
                </li>
              ))}
          </ul>
        )}
      </figcaption>
    </figure>
  );
}
