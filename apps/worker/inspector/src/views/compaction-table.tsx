/**
 * @module views/compaction-table
 * The compaction history as a table: when, what triggered it, the tier,
 * tokens before → after, how long it took, the summarizer, and any failure
 * (after which the LLM tiers cool down).
 */

import type { CompactionEvent } from "../api/types.ts";
import { formatDuration, formatShare, formatTime, formatTokens } from "../format.ts";

const TIER_NAMES: Record<number, string> = {
  0: "none",
  1: "tool strip",
  2: "summary",
  3: "partial summary",
  4: "deterministic summary",
};

export function CompactionTable({ events }: { events: readonly CompactionEvent[] }) {
  if (events.length === 0) {
    return <p class="note">No compaction yet: the context has stayed under its threshold.</p>;
  }
  return (
    <div class="table-scroll">
      <table class="compactions">
        <caption class="visually-hidden">Compactions, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">When</th>
            <th scope="col">Trigger</th>
            <th scope="col">Tier</th>
            <th scope="col" class="num">
              Tokens before → after
            </th>
            <th scope="col" class="num">
              Messages
            </th>
            <th scope="col" class="num">
              Duration
            </th>
            <th scope="col">Summarizer</th>
            <th scope="col">Failure</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr
              key={event.id}
              data-id={event.id}
              data-tier={event.tier}
              data-tokens-before={event.tokensBefore}
              data-tokens-after={event.tokensAfter}
            >
              <th scope="row">{event.id}</th>
              <td>{formatTime(event.at)}</td>
              <td>{event.trigger}</td>
              <td>
                <span class={`tier-badge tier-${event.tier}`}>{event.tier}</span>{" "}
                {TIER_NAMES[event.tier] ?? ""}
              </td>
              <td class="num">
                {formatTokens(event.tokensBefore)} → {formatTokens(event.tokensAfter)}{" "}
                <span class="muted">
                  (−{formatShare(event.tokensBefore - event.tokensAfter, event.tokensBefore)})
                </span>
              </td>
              <td class="num">
                {event.range.fromSeq}–{event.range.toSeq}
              </td>
              <td class="num">{formatDuration(event.durationMs)}</td>
              <td>{event.summarizer ?? "—"}</td>
              <td>
                {event.summarizerFailure === null ? (
                  "—"
                ) : (
                  <span class="failure">
                    {event.summarizerFailure.kind}: {event.summarizerFailure.message}
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
