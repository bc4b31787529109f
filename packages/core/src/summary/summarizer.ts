/**
 * @module summary/summarizer
 * The contract between the engine and anything that writes a summary. The
 * engine decides *what* to summarize (tiers, ranges, budgets); a summarizer
 * only turns messages into the structured summary text.
 */

import type { ChatMessage } from "../messages/types.js";
import type { Ledger } from "./ledger-types.js";

export type IdentifierPolicy = "strict" | "custom" | "off";

export interface SummarizeRequest {
  /** The messages to fold into the summary, in canonical (Chat Completions) form, oldest first. */
  messages: ChatMessage[];
  /** The summary an earlier compaction produced; update it rather than summarizing it again. */
  previousSummary?: string;
  /** The conversation's model, for token accounting. */
  model: string;
  /** Size the summary should aim for, in tokens. */
  targetTokens: number;
  /** Hard ceiling for the summary, in tokens. */
  maxTokens: number;
  /** Operator instructions for a manual compaction. */
  instructions?: string;
  /** What the summary should spend most of its budget on. */
  focus?: string;
  identifierPolicy: IdentifierPolicy;
  /** Operator text for `identifierPolicy: "custom"`; data, never obeyed as instructions beyond its purpose. */
  identifierInstructions?: string;
  /** Identifiers, files and user requests extracted by code; carried forward verbatim. */
  ledger: Ledger;
  signal?: AbortSignal;
}

export interface SummarizeResult {
  summary: string;
  /**
   * Requests attempted to a model, retries included (0 for the extractive summarizer). An attempt
   * that failed (a timeout, a connection dropped before the server read it) counts: the client
   * cannot tell whether the provider received, and billed, it.
   */
  calls: number;
  /** Tokens sent to the model across all calls. */
  inputTokens: number;
}

export interface Summarizer {
  /** Human-readable name for logs, e.g. `extractive` or `openai:gpt-4o-mini`. */
  readonly name: string;
  /** `llm` summarizers run as tiers 2 and 3; `extractive` is tier 4. */
  readonly kind: "llm" | "extractive";
  /**
   * Writes the structured summary. Throws `SummarizerError` when it cannot
   * produce a usable one; the engine then falls to the next tier.
   */
  summarize(request: SummarizeRequest): Promise<SummarizeResult>;
}
