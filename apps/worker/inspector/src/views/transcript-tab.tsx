/**
 * @module views/transcript-tab
 * The transcript, a page at a time: each message with its seq, role and
 * tokens, and whether it is in the context, pruned, summarized or left out.
 * A tool output that left the context opens from `/tool-outputs`. Search
 * jumps to a message: the page holding it opens and the message takes focus.
 */

import { useEffect, useState } from "preact/hooks";
import { readContextQuietly } from "../api/session-data.ts";
import type { TranscriptEntry } from "../api/types.ts";
import { useApi } from "../components/api-context.ts";
import { ErrorNote } from "../components/error-note.tsx";
import { useLoad } from "../components/use-load.ts";
import { formatTime, formatTokens } from "../format.ts";
import {
  type MessageState,
  messageStates,
  STATE_LABELS,
  type StateOf,
} from "../model/message-state.ts";
import { routeHash } from "../routing/route.ts";
import { MessageBody } from "./message-body.tsx";
import { RecallSearch } from "./recall-search.tsx";
import type { TabProps } from "./tab-props.ts";
import { ToolOutputPanel } from "./tool-output-panel.tsx";

const PAGE = 50;
/** Messages shown above a message that search or a link jumps to. */
const LEAD = 5;

function TranscriptRow(props: {
  sessionId: string;
  entry: TranscriptEntry;
  state: MessageState | null;
  coveredSeq: number;
  target: boolean;
}) {
  const { entry, state } = props;
  const [showOutput, setShowOutput] = useState(false);
  const toolCallId = entry.message.tool_call_id;
  const left =
    state === null ? entry.seq <= props.coveredSeq : state !== "context" && state !== "omitted";
  return (
    <li
      id={`msg-${entry.seq}`}
      class={`message role-${entry.role}${props.target ? " target" : ""}`}
      tabIndex={-1}
      data-seq={entry.seq}
      data-state={state ?? "unknown"}
      aria-label={`Message ${entry.seq}, ${entry.role}`}
    >
      <div class="message-head">
        <span class="seq">#{entry.seq}</span>
        <span class="role">{entry.role}</span>
        <span class="tokens">{formatTokens(entry.tokens)} tokens</span>
        <span class={`badge state-${state ?? "unknown"}`}>
          {state === null
            ? entry.seq > props.coveredSeq
              ? "in context"
              : "compacted range"
            : STATE_LABELS[state]}
        </span>
        <span class="muted time">{formatTime(entry.createdAt)}</span>
      </div>
      {toolCallId === undefined ? null : (
        <p class="muted">
          output of <code>{toolCallId}</code>
        </p>
      )}
      <MessageBody message={entry.message} />
      {toolCallId !== undefined && left ? (
        showOutput ? (
          <ToolOutputPanel
            sessionId={props.sessionId}
            toolCallId={toolCallId}
            onClose={() => setShowOutput(false)}
          />
        ) : (
          <button type="button" class="open-output" onClick={() => setShowOutput(true)}>
            Open the full output
          </button>
        )
      ) : null}
    </li>
  );
}

export function TranscriptTab({ route, status }: TabProps) {
  const api = useApi();
  const after = route.after ?? (route.seq === undefined ? 0 : Math.max(0, route.seq - 1 - LEAD));
  const [context] = useLoad(
    async () => readContextQuietly(api.session(route.id), status),
    [api, route.id, status],
  );
  const [page] = useLoad(
    async () => api.session(route.id).transcript({ after, limit: PAGE }),
    [api, route.id, after],
  );

  useEffect(() => {
    if (page.state !== "ok" || route.seq === undefined) return;
    const row = document.getElementById(`msg-${route.seq}`);
    row?.scrollIntoView({ block: "center" });
    row?.focus({ preventScroll: true });
  }, [page, route.seq]);

  const stateOf: StateOf | null =
    context.state === "ok" && context.value.context !== null
      ? messageStates({
          messages: context.value.context.messages as never[],
          coveredSeq: context.value.context.coveredSeq,
        })
      : null;
  const link = (pageAfter: number) =>
    routeHash({ view: "session", id: route.id, tab: "transcript", after: pageAfter });

  return (
    <div class="transcript-tab">
      <RecallSearch sessionId={route.id} />
      {context.state === "ok" && context.value.context === null ? (
        <p class="note">Where each message stands is not shown: {context.value.reason}.</p>
      ) : context.state === "error" ? (
        <ErrorNote error={context.error} what="Reading the context" />
      ) : null}
      {page.state === "loading" ? (
        <p aria-busy="true">Loading messages…</p>
      ) : page.state === "error" ? (
        <ErrorNote error={page.error} what="Loading the transcript" />
      ) : (
        <>
          <nav class="pager" aria-label="Transcript pages">
            {after > 0 ? <a href={link(Math.max(0, after - PAGE))}>← Older</a> : <span />}
            <span role="status">
              {page.value.messages.length === 0
                ? "No messages here."
                : `Messages #${page.value.messages[0]?.seq} – #${page.value.messages.at(-1)?.seq} of ${status.lastSeq}`}
            </span>
            {page.value.nextAfter === null ? (
              <span />
            ) : (
              <a href={link(page.value.nextAfter)}>Newer →</a>
            )}
          </nav>
          <ol class="transcript">
            {page.value.messages.map((entry) => (
              <TranscriptRow
                key={entry.seq}
                sessionId={route.id}
                entry={entry}
                state={stateOf === null ? null : stateOf(entry)}
                coveredSeq={status.coveredSeq}
                target={entry.seq === route.seq}
              />
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
