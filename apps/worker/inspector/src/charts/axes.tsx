/**
 * @module charts/axes
 * The grid, tick labels and x-axis title the line charts share (the context
 * chart and the cost chart), in one margin, so the two read alike side by side.
 */

import { formatShort } from "../format.ts";

/** Room around a chart's plot for its tick labels and axis title. */
export const MARGIN = { left: 56, right: 16, top: 14, bottom: 34 };

export interface AxesProps {
  width: number;
  height: number;
  /** The y ticks, drawn as grid lines with their labels. */
  yTicks: number[];
  xTicks: number[];
  x: (value: number) => number;
  y: (value: number) => number;
  /** The x axis's title, at its right end. */
  xTitle: string;
}

export function Axes({ width, height, yTicks, xTicks, x, y, xTitle }: AxesProps) {
  return (
    <>
      {yTicks.map((t) => (
        <g key={`y${t}`} class="axis">
          <line x1={MARGIN.left} x2={width - MARGIN.right} y1={y(t)} y2={y(t)} class="grid" />
          <text x={MARGIN.left - 6} y={y(t) + 4} text-anchor="end">
            {formatShort(t)}
          </text>
        </g>
      ))}
      {xTicks.map((t) => (
        <text
          key={`x${t}`}
          class="axis"
          x={x(t)}
          y={height - MARGIN.bottom + 16}
          text-anchor="middle"
        >
          {formatShort(t)}
        </text>
      ))}
      <text class="axis" x={width - MARGIN.right} y={height - 4} text-anchor="end">
        {xTitle}
      </text>
    </>
  );
}
