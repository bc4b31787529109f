/**
 * @module views/summaries-tab
 * The latest summary by section, and what any compaction's summary added to
 * and dropped from the one before it, so drift across compactions is visible.
 * Summaries are model or extractor output: shown as text, never as markup.
 */

import type { CompactionEvent } from "../api/types.ts";
import { useApi } from "../components/api-context.ts";
import { ErrorNote } from "../components/error-note.tsx";
import { useLoad } from "../components/use-load.ts";
import { formatTime } from "../format.ts";
import {
  diffSummaries,
  type SectionDiff,
  summarySections,
  writtenSummaries,
} from "../model/summary-diff.ts";
import { navigate } from "../routing/use-route.ts";
import { LongText } from "./message-body.tsx";
import type { TabProps } from "./tab-props.ts";

type WithSummary = CompactionEvent & { summary: string };

function SummaryBySection({ event }: { event: WithSummary }) {
  return (
    <div class="summary-sections">
      {summarySections(event.summary).map((section, index) => (
        <section key={`${index}-${section.title}`} class="summary-section">
          <h4>{section.title === "" ? "(before the first heading)" : section.title}</h4>
          <LongText text={section.lines.join("\n")} label={`the ${section.title || "preamble"}`} />
        </section>
      ))}
    </div>
  );
}

const CHANGE_LABELS: Record<SectionDiff["change"], string> = {
  added: "new section",
  removed: "section dropped",
  changed: "changed",
  unchanged: "unchanged",
};

function DiffView({ before, after }: { before: WithSummary; after: WithSummary }) {
  const diff = diffSummaries(before.summary, after.summary);
  const added = diff.reduce((sum, d) => sum + d.added.length, 0);
  const dropped = diff.reduce((sum, d) => sum + d.dropped.length, 0);
  return (
    <div class="diff" data-added={added} data-dropped={dropped}>
      <p role="status">
        From compaction #{before.id} to #{after.id}:{" "}
        <span class="added-count">{added} lines added</span>,{" "}
        <span class="dropped-count">{dropped} lines dropped</span>.
      </p>
      {diff.map((section, index) => (
        <section
          key={`${index}-${section.title}`}
          class={`diff-section change-${section.change}`}
          data-title={section.title}
        >
          <h4>
            {section.title === "" ? "(before the first heading)" : section.title}{" "}
            <span class="badge">{CHANGE_LABELS[section.change]}</span>
          </h4>
          {section.dropped.length === 0 && section.added.length === 0 ? null : (
            <ul class="diff-lines">
              {section.dropped.map((line, i) => (
                <li key={`d${i}`} class="dropped">
                  <del>
                    <span class="sign" aria-hidden="true">
                      −{" "}
                    </span>
                    <span class="visually-hidden">dropped: </span>
                    {line}
                  </del>
                </li>
              ))}
              {section.added.map((line, i) => (
                <li key={`a${i}`} class="added">
                  <ins>
                    <span class="sign" aria-hidden="true">
                      +{" "}
                    </span>
                    <span class="visually-hidden">added: </span>
                    {line}
                  </ins>
                </li>
              ))}
            </ul>
          )}
          {section.kept.length === 0 ? null : (
            <details>
              <summary>
                {section.kept.length} {section.kept.length === 1 ? "line" : "lines"} kept
              </summary>
              <pre class="text">{section.kept.join("\n")}</pre>
            </details>
          )}
        </section>
      ))}
    </div>
  );
}

export function SummariesTab({ route }: TabProps) {
  const api = useApi();
  const [events] = useLoad(async () => api.session(route.id).compactions(), [api, route.id]);
  if (events.state === "loading") return <p aria-busy="true">Loading summaries…</p>;
  if (events.state === "error")
    return <ErrorNote error={events.error} what="Loading the compactions" />;

  const summaries = writtenSummaries(events.value);
  const latest = summaries.at(-1);
  if (latest === undefined) {
    return (
      <p class="note">
        No summary yet: no compaction of this session has summarized (tier 2-4) so far.
      </p>
    );
  }
  const pairs = summaries
    .slice(1)
    .map((after, i) => ({ before: summaries[i] as WithSummary, after }));
  const chosen = pairs.find((pair) => pair.after.id === route.compare) ?? pairs.at(-1);

  return (
    <div class="summaries">
      <section aria-labelledby="diff-title" class="panel">
        <h2 id="diff-title">What changed between summaries</h2>
        {chosen === undefined ? (
          <p class="note">
            Only one summary so far: the difference shows once a second compaction summarizes.
          </p>
        ) : (
          <>
            <div class="toolbar">
              <label for="summary-pair">Compare</label>
              <select
                id="summary-pair"
                value={String(chosen.after.id)}
                onChange={(e) =>
                  navigate({ ...route, tab: "summaries", compare: Number(e.currentTarget.value) })
                }
              >
                {pairs.map((pair) => (
                  <option key={pair.after.id} value={String(pair.after.id)}>
                    #{pair.before.id} → #{pair.after.id}
                  </option>
                ))}
              </select>
            </div>
            <DiffView before={chosen.before} after={chosen.after} />
          </>
        )}
      </section>
      <section aria-labelledby="latest-title" class="panel">
        <h2 id="latest-title">Latest summary</h2>
        <p class="muted">
          From compaction #{latest.id} (tier {latest.tier},{" "}
          {latest.summarizer ?? "kept from an earlier compaction"}), {formatTime(latest.at)}.
        </p>
        <SummaryBySection event={latest} />
      </section>
    </div>
  );
}
