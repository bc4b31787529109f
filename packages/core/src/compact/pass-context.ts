/**
 * @module compact/pass-context
 * What the passes of one `compact()` call share (the model, the resolved
 * options, the latest user message, which call each tool output answers, the
 * outputs pruned so far, summarizer usage and failure, the summary's anchor),
 * what one pass returns, and the tool-output bookkeeping every pass does:
 * pruning that remembers which call each placeholder stands for, and the
 * outputs a summary is about to fold in.
 */

import { CondenseError } from "../errors/condense-error.js";
import type { ToolResultCall } from "../messages/call-ids.js";
import { messageText } from "../messages/content.js";
import type { ChatMessage } from "../messages/types.js";
import type { Ledger } from "../summary/ledger-types.js";
import { countMessageTokens, messageTokens } from "../tokens/count.js";
import type { LatestUser } from "./latest-user.js";
import type { ResolvedOptions } from "./options.js";
import { isPrunePlaceholder, namingOf, type OutputNaming, pruneToolOutputs } from "./prune.js";
import type { CutToolOutput, PrunedToolOutput, SummarizerFailure, Tier } from "./types.js";
import type { MessageLabels } from "./withhold-secrets.js";

export interface PassContext {
  model: string;
  /** Kept verbatim whatever is compacted. */
  latestUser: LatestUser | undefined;
  options: ResolvedOptions;
  /**
   * The call each tool message of the input answers (id, occurrence, tool), by message object: the
   * passes keep the input's objects, and an id the provider reused names several calls.
   */
  calls: Map<ChatMessage, ToolResultCall>;
  /** How placeholders name an output for fetching it back. */
  reference: OutputNaming["reference"];
  /** Tool outputs removed from the context so far, by occurrence and call id. */
  pruned: Map<string, PrunedToolOutput>;
  /** The recent turns' outputs a pass cut to head and tail, whole, by occurrence and call id. */
  recentCuts: Map<string, CutToolOutput>;
  failure: SummarizerFailure | undefined;
  summarizerCalls: number;
  summarizerInputTokens: number;
  /** The digest of the summary the engine wrote (the caller's anchor, then each new summary's). */
  anchor: string | undefined;
  /** Where each input message is, for the pointers of withheld secrets. */
  labels: MessageLabels;
  /**
   * The ledger the kept passes of this compaction wrote so far: the next pass's summary carries it
   * as it carries a caller's stored one (an entry an earlier pass's summary only counted in a
   * "left out for size" line is not in its text).
   */
  passLedger: Ledger | undefined;
}

export interface PassResult {
  messages: ChatMessage[];
  tokens: number;
  tier: Tier;
  ledger: Ledger | undefined;
  /** Tool outputs this pass removed from the context; recorded only if the pass is kept. */
  pruned: PrunedToolOutput[];
  /** The text of the summary this pass placed; undefined when it placed none. */
  summary: string | undefined;
  /** Tool outputs of the recent turns this pass cut to head and tail (`compact/recent-reads`). */
  cut?: CutToolOutput[];
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new CondenseError("aborted", "compaction was aborted by the caller's signal");
}

/** The naming of outputs in a pass's `messages`: by the input's calls, else read from the list itself. */
export function namingFor(context: PassContext, messages: readonly ChatMessage[]): OutputNaming {
  let own: OutputNaming | undefined;
  return {
    callOf: (message, index) => {
      const known = context.calls.get(message);
      if (known !== undefined) return known;
      own ??= namingOf(messages);
      return own.callOf(message, index);
    },
    reference: context.reference,
  };
}

/** Prunes like `pruneToolOutputs`, remembering which call each placeholder stands for. */
export function prune(
  messages: readonly ChatMessage[],
  context: PassContext,
  range: Parameters<typeof pruneToolOutputs>[2],
): ReturnType<typeof pruneToolOutputs> {
  const naming = namingFor(context, messages);
  const outcome = pruneToolOutputs(messages, context.model, range, naming);
  outcome.messages.forEach((message, index) => {
    const before = messages[index];
    if (message !== before && before?.role === "tool")
      context.calls.set(message, naming.callOf(before, index));
  });
  return outcome;
}

/** Every real tool output in a range that is about to be summarized away. */
export function outputsOf(
  messages: readonly ChatMessage[],
  all: readonly ChatMessage[],
  context: PassContext,
): PrunedToolOutput[] {
  const naming = namingFor(context, all);
  const outputs: PrunedToolOutput[] = [];
  for (const message of messages) {
    if (message.role !== "tool" || !message.tool_call_id) continue;
    const content = messageText(message);
    if (isPrunePlaceholder(content)) continue;
    const { toolCallId, occurrence, toolName } = naming.callOf(message, all.indexOf(message));
    outputs.push({
      toolCallId,
      occurrence,
      toolName: toolName ?? "tool",
      content,
      tokens: messageTokens(message, context.model),
    });
  }
  return outputs;
}

/**
 * Strips tool outputs anywhere but in the last `newest` messages (oldest first) until the messages
 * fit the limit; those are what the model has not seen yet (`compact/protected-tail`).
 */
export function fitByPruning(
  messages: ChatMessage[],
  context: PassContext,
  newest: number,
): { messages: ChatMessage[]; pruned: PrunedToolOutput[] } {
  const tokens = countMessageTokens(messages, context.model);
  if (tokens <= context.options.limit) return { messages, pruned: [] };
  const outcome = prune(messages, context, {
    from: 0,
    to: messages.length - newest,
    needToSave: tokens - context.options.limit,
  });
  return { messages: outcome.messages, pruned: outcome.pruned };
}
