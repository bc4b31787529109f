/**
 * @module summary/llm/cached-prompt-summarizer
 * An LLM summarizer that asks the session's own model, through its prompt cache: the summary
 * request is the live prompt (the request the agent just sent: system, tools, messages and
 * cache markers, byte for byte) with the summary instruction appended as its last user turn,
 * as Claude Code and opencode compact. The provider reads the prompt from its cache, so the
 * summary costs the cache read of the prompt, the instruction and the output
 * (`compact/summarizer-cost`), not the whole history again.
 *
 * The caller owns the channel (`send`): it knows the prompt, the protocol and the credentials,
 * which never reach the engine. Whatever comes back goes through the checks every LLM summary
 * goes through (`summary/llm/answer-checks`, the required sections with one retry, the size),
 * and the ledger is verified by code; every failure is a `SummarizerError`, so the engine falls
 * to the next tier. The engine withholds secrets from the summary whatever the model wrote
 * (`compact/withhold-secrets`).
 */

import { SummarizerError } from "../../errors/condense-error.js";
import { countTokens } from "../../tokens/count.js";
import { appendMissingIdentifiers, missingIdentifiers } from "../ledger/ledger.js";
import type { SummarizeRequest, SummarizeResult, Summarizer } from "../summarizer.js";
import { missingSections } from "../template.js";
import { acceptSummaryAnswer } from "./answer-checks.js";
import { cachedPromptInstruction, missingSectionsPrompt, renderLedger } from "./prompt.js";

/** A turn appended after the live prompt: the instruction, and on a retry the answer and the follow-up. */
export interface CachedPromptTurn {
  role: "user" | "assistant";
  text: string;
}

/** What the model answered the extended prompt, and what the provider counted. */
export interface CachedPromptAnswer {
  /** The answer's text (its tool calls, if any, are not a summary and are left out). */
  text: string;
  /** `stop`, `length`, `content_filter`, `tool_calls` (each protocol's reason mapped to these), or null. */
  finishReason: string | null;
  refusal?: string;
  usage?: {
    inputTokens: number;
    cacheReadTokens?: number;
    cacheWriteTokens?: number;
    outputTokens?: number;
  };
}

export interface CachedPromptSummarizerOptions {
  /** The session's model: the one the live prompt went to. */
  model: string;
  /**
   * Sends the live prompt with `turns` appended and resolves with the answer; rejects when the
   * request fails (a `SummarizerError` keeps its kind, anything else counts as `other`).
   */
  send(turns: readonly CachedPromptTurn[], signal?: AbortSignal): Promise<CachedPromptAnswer>;
}

/** The summary may exceed `maxTokens` by this share before it counts as too large (tokenizers differ). */
const SIZE_TOLERANCE = 1.1;
/** The template alone takes ~100 tokens: a summary this small is never "larger than its input". */
const SMALL_SUMMARY_TOKENS = 512;

/** Builds a summarizer that extends the live prompt through `options.send`. */
export function cachedPromptSummarizer(options: CachedPromptSummarizerOptions): Summarizer {
  const { model, send } = options;
  return {
    name: `cached-prompt:${model}`,
    kind: "llm",
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      const tally = { calls: 0, inputTokens: 0 };
      const count = (text: string) => countTokens(text, model);
      const ask = async (turns: CachedPromptTurn[]): Promise<string> => {
        tally.calls += 1;
        let answer: CachedPromptAnswer;
        try {
          answer = await send(turns, request.signal);
        } catch (error) {
          if (SummarizerError.isInstance(error)) throw error;
          const reason = error instanceof Error ? error.message : String(error);
          throw new SummarizerError(
            "other",
            `the summary request through the cache failed: ${reason}`,
          );
        }
        // Without the provider's count, what was surely sent: the appended turns.
        tally.inputTokens +=
          answer.usage?.inputTokens ?? turns.reduce((sum, turn) => sum + count(turn.text), 0);
        return acceptSummaryAnswer(
          {
            content: answer.text,
            refusal: answer.refusal ?? "",
            finishReason: answer.finishReason,
          },
          "the summary",
          model,
          (text) => text,
        );
      };
      try {
        const maxTokens = Math.max(1, request.maxTokens);
        const instruction = cachedPromptInstruction(
          {
            targetTokens: Math.max(1, Math.min(request.targetTokens, maxTokens)),
            maxTokens,
            instructions: request.instructions,
            focus: request.focus,
            identifierPolicy: request.identifierPolicy,
            identifierInstructions: request.identifierInstructions,
            ledger: renderLedger(request.ledger),
          },
          request.previousSummary !== undefined && request.previousSummary.trim() !== "",
        );
        const first: CachedPromptTurn[] = [{ role: "user", text: instruction }];
        let summary = await ask(first);
        const missing = missingSections(summary);
        if (missing.length > 0) {
          summary = await ask([
            ...first,
            { role: "assistant", text: summary },
            { role: "user", text: missingSectionsPrompt(missing) },
          ]);
          const still = missingSections(summary);
          if (still.length > 0) {
            throw new SummarizerError(
              "missing_sections",
              `the summarizer (${model}) left out required section(s) ${still.join(", ")} even after being asked again`,
            );
          }
        }
        const summaryTokens = count(summary);
        const materialTokens =
          request.messages.reduce(
            (sum, message) =>
              sum +
              count(
                typeof message.content === "string"
                  ? message.content
                  : JSON.stringify(message.content ?? ""),
              ),
            0,
          ) + (request.previousSummary === undefined ? 0 : count(request.previousSummary));
        if (summaryTokens > Math.max(materialTokens, SMALL_SUMMARY_TOKENS)) {
          throw new SummarizerError(
            "too_large",
            `the summary (${summaryTokens} tokens) is larger than what it summarizes (${materialTokens} tokens)`,
          );
        }
        if (summaryTokens > request.maxTokens * SIZE_TOLERANCE) {
          throw new SummarizerError(
            "too_large",
            `the summary (${summaryTokens} tokens) exceeds the limit of ${request.maxTokens} tokens`,
          );
        }
        // The ledger is carried by code, whatever the model wrote.
        const absent = missingIdentifiers(summary, request.ledger);
        return {
          summary: absent.length === 0 ? summary : appendMissingIdentifiers(summary, absent),
          calls: tally.calls,
          inputTokens: tally.inputTokens,
        };
      } catch (error) {
        if (SummarizerError.isInstance(error)) error.usage = { ...tally };
        throw error;
      }
    },
  };
}
