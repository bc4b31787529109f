/**
 * @module views/overview-tab
 * A session at a glance: the gauge (context against window, threshold and
 * reserve), the chart of context tokens per message against the raw
 * transcript with each compaction, the input bill beside it (`cost-panel`),
 * the composition of the context by part, and the compaction history.
 */

import { readContextQuietly, readTranscript } from "../api/session-data.ts";
import { ContextChart } from "../charts/context-chart.tsx";
import { Gauge } from "../charts/gauge.tsx";
import { useApi } from "../components/api-context.ts";
import { ErrorNote } from "../components/error-note.tsx";
import { useLoad } from "../components/use-load.ts";
import { formatShare, formatTime, formatTokens } from "../format.ts";
import { type ContextPart, composeContext, PART_LABELS } from "../model/composition.ts";
import { triggerTokens } from "../model/limits.ts";
import { buildTimeline } from "../model/timeline.ts";
import { CompactionTable } from "./compaction-table.tsx";
import { CostPanel } from "./cost-panel.tsx";
import type { TabProps } from "./tab-props.ts";

function Composition({ parts, total }: { parts: ContextPart[]; total: number }) {
  return (
    <div class="table-scroll">
      <table class="composition">
        <caption class="visually-hidden">The current context by part</caption>
        <thead>
          <tr>
            <th scope="col">Part</th>
            <th scope="col" class="num">
              Messages
            </th>
            <th scope="col" class="num">
              Tokens
            </th>
            <th scope="col" class="num">
              Share
            </th>
          </tr>
        </thead>
        <tbody>
          {parts.map((part) => (
            <tr key={part.part} data-part={part.part} data-tokens={part.tokens}>
              <th scope="row">
                <span class={`swatch part-${part.part}`} /> {PART_LABELS[part.part]}
              </th>
              <td class="num">{part.messages}</td>
              <td class="num">
                {part.exact ? "" : "≈ "}
                {formatTokens(part.tokens)}
              </td>
              <td class="num">{formatShare(part.tokens, total)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function OverviewTab({ route, status }: TabProps) {
  const api = useApi();
  const [data] = useLoad(async () => {
    const session = api.session(route.id);
    const [compactions, transcript, context] = await Promise.all([
      session.compactions(),
      readTranscript(session),
      readContextQuietly(session, status),
    ]);
    return { compactions, transcript, context };
  }, [api, route.id, status]);

  const trigger = triggerTokens(status);
  const parts =
    data.state === "ok" && data.value.context.context !== null
      ? composeContext({
          messages: data.value.context.context.messages as never[],
          tokens: data.value.context.context.tokens,
          pinned: status.settings.pinned,
          transcript: data.value.transcript.entries,
        })
      : undefined;

  return (
    <div class="overview">
      <section aria-labelledby="gauge-title" class="panel">
        <h2 id="gauge-title">Context now</h2>
        <Gauge
          tokens={status.contextTokens}
          contextWindow={status.contextWindow}
          trigger={trigger}
          budget={status.budget}
          warningLevel={status.warningLevel}
          {...(parts === undefined ? {} : { segments: parts })}
        />
        <dl class="facts">
          <div>
            <dt>Warning level</dt>
            <dd class={`level-${status.warningLevel}`}>{status.warningLevel}</dd>
          </div>
          <div>
            <dt>Compaction</dt>
            <dd>{status.compaction.status}</dd>
          </div>
          <div>
            <dt>Messages in context</dt>
            <dd>
              {status.contextMessageCount} (transcript: {status.messageCount}, up to #
              {status.coveredSeq} compacted)
            </dd>
          </div>
          <div>
            <dt>Raw transcript</dt>
            <dd>
              {formatTokens(status.transcriptTokens)} tokens (
              {formatShare(status.transcriptTokens, status.contextWindow)} of the window)
            </dd>
          </div>
          <div>
            <dt>LLM cooldown</dt>
            <dd>
              {status.cooldownUntil === null ? "none" : `until ${formatTime(status.cooldownUntil)}`}
            </dd>
          </div>
          <div>
            <dt>Learned window</dt>
            <dd>
              {status.learnedContextWindow === null
                ? "none"
                : formatTokens(status.learnedContextWindow)}
            </dd>
          </div>
          <div>
            <dt>Token calibration</dt>
            <dd>
              ×{status.calibration.ratio.toFixed(3)} ({status.calibration.samples} samples)
            </dd>
          </div>
          <div>
            <dt>Last active</dt>
            <dd>{formatTime(status.updatedAt)}</dd>
          </div>
        </dl>
      </section>

      {data.state === "loading" ? (
        <p aria-busy="true">Loading the transcript and compactions…</p>
      ) : data.state === "error" ? (
        <ErrorNote error={data.error} what="Loading the session's history" />
      ) : (
        <>
          <section aria-labelledby="chart-title" class="panel">
            <h2 id="chart-title">Context per message</h2>
            <ContextChart
              sessionId={route.id}
              timeline={buildTimeline(data.value.transcript.entries, data.value.compactions)}
              contextWindow={status.contextWindow}
              trigger={trigger}
              budget={status.budget}
              lastSeq={status.lastSeq}
            />
            {data.value.transcript.complete ? null : (
              <p class="note">
                The chart shows the first {formatTokens(data.value.transcript.entries.length)}{" "}
                messages only.
              </p>
            )}
          </section>

          <CostPanel sessionId={route.id} status={status} />

          <section aria-labelledby="composition-title" class="panel">
            <h2 id="composition-title">What the context is made of</h2>
            {parts === undefined ? (
              <p class="note">
                Not shown:{" "}
                {data.value.context.context === null ? data.value.context.reason : "no context"}.
              </p>
            ) : (
              <>
                <Composition parts={parts} total={data.value.context.context?.tokens ?? 0} />
                <p class="muted">
                  Messages kept as appended are counted exactly; ≈ marks parts the transcript does
                  not hold (the summary, pinned and memory messages, tool-output placeholders),
                  which share the rest of the context's{" "}
                  {formatTokens(data.value.context.context?.tokens ?? 0)} tokens by size.
                </p>
              </>
            )}
          </section>

          <section aria-labelledby="history-title" class="panel">
            <h2 id="history-title">Compactions ({data.value.compactions.length})</h2>
            <CompactionTable events={data.value.compactions} />
          </section>
        </>
      )}
    </div>
  );
}
