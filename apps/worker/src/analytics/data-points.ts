/**
 * @module analytics/data-points
 * With an Analytics Engine dataset bound as `ANALYTICS`, one data point per
 * compaction and per gateway turn, so a deployment can chart tokens and
 * savings per user and model with SQL. Without the binding nothing is
 * written. A data point carries ids and figures only, never content or keys;
 * writing one never fails the work it counts.
 *
 * Layout (query with `blob1`…, `double1`…; `index1` samples by user):
 * - blobs: kind (`compaction` | `gateway_turn`), user, model, what started it (trigger or upstream)
 * - doubles: tokens in, tokens out, cached tokens, tokens saved, tier (0: none), duration in ms
 */

import { errorFields, logLine } from "../log/log-lines";

/** The part of an Analytics Engine dataset binding this module calls. */
export interface AnalyticsDataset {
  writeDataPoint(point: { blobs?: string[]; doubles?: number[]; indexes?: string[] }): void;
}

export interface DataPoint {
  kind: "compaction" | "gateway_turn";
  user: string;
  model: string;
  /** A compaction's trigger, a gateway turn's upstream. */
  source: string;
  tokensIn?: number;
  tokensOut?: number;
  cachedTokens?: number;
  tokensSaved?: number;
  tier?: number | null;
  durationMs: number;
}

/** Writes `point` to the `ANALYTICS` dataset, when the deployment binds one. */
export function writeDataPoint(env: Env, point: DataPoint): void {
  const dataset = env.ANALYTICS;
  if (dataset === undefined) return;
  try {
    dataset.writeDataPoint({
      indexes: [point.user.slice(0, 96)],
      blobs: [point.kind, point.user, point.model, point.source],
      doubles: [
        point.tokensIn ?? 0,
        point.tokensOut ?? 0,
        point.cachedTokens ?? 0,
        Math.max(0, point.tokensSaved ?? 0),
        point.tier ?? 0,
        point.durationMs,
      ],
    });
  } catch (error) {
    logLine({ type: "analytics_write_failed", level: "warn", ...errorFields(error) });
  }
}
