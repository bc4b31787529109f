/**
 * @module session/context/fit-served
 * What is served always fits (issue 33): a context a session serves
 * (`GET /context`, `/overflow`, a gateway turn by reference or whole) that is
 * over its window when it is served is fitted then, to its budget (as core's
 * `compact` fits: the newest outputs stay whole while they fit the window). Compaction keeps the
 * messages after the last assistant turn whole, and results that came after
 * its snapshot (calls it left out while they awaited them) are in no view; so
 * core's `fitContext` prunes outputs the model has seen, then cuts the newest
 * ones to head and tail, each marker naming the route that serves the whole
 * output (and the recall tool when the session offers it). Only what is served
 * changes: the transcript keeps every output whole, the view is not rewritten.
 * A context that even so does not fit its window is refused with
 * `context_over_window`, before anything is recorded as served.
 */

import { type ChatMessage, fitContext, messageTokens, RECALL_TOOL_NAME } from "@condense/core";
import { ApiError } from "../../api/errors";
import type { SessionSettings } from "../store/settings";
import type { ContextMeasure } from "./context-measure";
import type { Snapshot } from "./snapshot";
import { cutOutputReference, outputSeqs } from "./tool-outputs";

/** The reply priming `countMessageTokens` adds and a snapshot's sum of stored counts leaves out. */
const REPLY_PRIMING_TOKENS = 3;

/** A snapshot fitted to its budget, and the messages the fit replaced, by index in `messages`. */
export interface FittedSnapshot {
  snapshot: Snapshot;
  replaced: Array<{ index: number; message: ChatMessage }>;
}

/**
 * `snapshot` fitted as the module says (the same snapshot when it fits its window).
 * Throws `context_over_window` when it cannot fit the window.
 */
export function fitServed(
  sql: SqlStorage,
  snapshot: Snapshot,
  measure: ContextMeasure,
  settings: SessionSettings,
  sessionId: string,
): FittedSnapshot {
  // Tool definitions that fill the window alone are the request's: cutting the messages to nothing
  // would not make it fit, the upstream says whether it does (`compaction/exhaustion` warns).
  if (snapshot.tokens <= measure.engineWindow || measure.overheadFillsWindow) {
    return { snapshot, replaced: [] };
  }
  const viewLength = snapshot.messages.length - snapshot.tail.length;
  // A view of OpenAI compaction items is sent as it is: only the messages after it may change.
  const fixed = snapshot.openaiItems === undefined ? 0 : viewLength;
  const fixedTokens = snapshot.messages
    .slice(0, fixed)
    .reduce((sum, message) => sum + messageTokens(message, measure.model), 0);
  const fit = fitContext(snapshot.messages.slice(fixed), {
    model: measure.model,
    limit: measure.engineBudget - fixedTokens + REPLY_PRIMING_TOKENS,
    cutReference: cutOutputReference(outputSeqs(sql, snapshot), sessionId),
    ...(settings.recall ? { recallTool: RECALL_TOOL_NAME } : {}),
  });
  const tokens = fixedTokens + fit.tokens - REPLY_PRIMING_TOKENS;
  if (tokens > measure.engineWindow) throw overWindow(measure, tokens);
  const replaced: FittedSnapshot["replaced"] = [];
  const messages = [...snapshot.messages];
  const tokenCounts = [...snapshot.tokenCounts];
  fit.messages.forEach((message, offset) => {
    const index = fixed + offset;
    if (message === snapshot.messages[index]) return;
    messages[index] = message;
    tokenCounts[index] = messageTokens(message, measure.model);
    replaced.push({ index, message });
  });
  return {
    snapshot: { ...snapshot, messages, tokenCounts, tail: messages.slice(viewLength), tokens },
    replaced,
  };
}

/** The refusal of a context that no cut can make fit its window: what is over, and what to do. */
function overWindow(measure: ContextMeasure, tokens: number): ApiError {
  const window = measure.contextWindow;
  const beside = [
    measure.pinnedTokens > 0 ? `${measure.pinnedTokens} of pinned messages` : undefined,
    measure.overheadTokens > 0 ? `${measure.overheadTokens} of tool definitions` : undefined,
  ].filter((part) => part !== undefined);
  return new ApiError(
    422,
    "context_over_window",
    `the context cannot fit the window of ${window} tokens: with every tool output the model has seen pruned and every newer one cut to its marker, its messages still count ${tokens} tokens, where ${measure.engineWindow} fit${beside.length > 0 ? ` beside ${beside.join(" and ")}` : ""}; what is left is what is never cut (system prompt, user messages, the summary). Use a model with a larger window (\`contextWindow\`), send shorter user messages, or unpin messages`,
    { contextWindow: window, tokens, fits: measure.engineWindow },
  );
}
