/**
 * @module views/tool-output-panel
 * A tool output read back from `/tool-outputs/{toolCallId}`: exactly as
 * appended, with whether a compaction took it out of the context.
 */

import { useEffect, useRef } from "preact/hooks";
import { useApi } from "../components/api-context.ts";
import { ErrorNote } from "../components/error-note.tsx";
import { useLoad } from "../components/use-load.ts";
import { formatTokens } from "../format.ts";
import { LongText } from "./message-body.tsx";

export function ToolOutputPanel(props: {
  sessionId: string;
  toolCallId: string;
  onClose: () => void;
}) {
  const api = useApi();
  const heading = useRef<HTMLHeadingElement>(null);
  const [output] = useLoad(
    async () => api.session(props.sessionId).toolOutput(props.toolCallId),
    [api, props.sessionId, props.toolCallId],
  );
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="tool-output" aria-labelledby={`output-${props.toolCallId}`}>
      <h4 id={`output-${props.toolCallId}`} tabIndex={-1} ref={heading}>
        Tool output <code>{props.toolCallId}</code>
      </h4>
      {output.state === "loading" ? (
        <p aria-busy="true">Loading the output…</p>
      ) : output.state === "error" ? (
        <ErrorNote error={output.error} what="Reading the tool output" />
      ) : (
        <>
          <p class="muted">
            {output.value.toolName ?? "unknown tool"} · message #{output.value.seq} ·{" "}
            {formatTokens(output.value.tokens)} tokens ·{" "}
            <span class="output-pruned" data-pruned={String(output.value.pruned)}>
              {output.value.pruned ? "pruned from the context by a compaction" : "not pruned"}
            </span>
          </p>
          <LongText
            text={
              typeof output.value.content === "string"
                ? output.value.content
                : JSON.stringify(output.value.content, null, 2)
            }
            label="the output"
          />
        </>
      )}
      <button type="button" onClick={props.onClose}>
        Close output
      </button>
    </section>
  );
}
