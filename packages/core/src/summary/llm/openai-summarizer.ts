/**
 * @module summary/llm/openai-summarizer
 * An LLM summarizer on the official `openai` SDK (Chat Completions), so it
 * works with OpenAI and every OpenAI-compatible server (vLLM, Ollama,
 * llama.cpp, OpenRouter, Together, Groq, Workers AI). No Node built-ins: it
 * runs in workerd.
 *
 * One `summarize` call: secrets are redacted, the messages are rendered as a
 * transcript (tool output fenced as untrusted, reasoning dropped, each message
 * capped), and then either one call (the range fits the summarizer's own
 * window) or one call per chunk followed by a merge. A `previousSummary` is
 * updated, not summarized again. The answer is checked (refusal, empty,
 * truncated, required sections, size), secrets are restored, and the ledger is
 * verified by code: whatever identifier or file the summary misses is
 * appended. Every failure is a `SummarizerError` whose `kind` says what went
 * wrong, so the engine can fall to the next tier.
 */

import { SummarizerError } from "../../errors/condense-error.js";
import { nonNegativeInteger } from "../../errors/option-checks.js";
import { countTokens } from "../../tokens/count.js";
import { appendMissingIdentifiers, missingIdentifiers } from "../ledger/ledger.js";
import { createSecretVault, redactSecrets, restoreSecrets, type SecretVault } from "../redact.js";
import type { SummarizeRequest, SummarizeResult, Summarizer } from "../summarizer.js";
import { missingSections } from "../template.js";
import { acceptSummaryAnswer } from "./answer-checks.js";
import {
  chunkTokenLimit,
  joinGroups,
  packChunks,
  type RenderedGroup,
  renderGroups,
  squeezeGroup,
} from "./chunk.js";
import { type Connection, openConnection } from "./openai-connection.js";
import {
  abortedError,
  type CallAnswer,
  type ChatMessageParam,
  type OpenAIConnectionOptions,
  type OpenAITransport,
  type Tally,
} from "./openai-transport.js";
import {
  chunkPrompt,
  mergePrompt,
  missingSectionsPrompt,
  type PromptSteering,
  renderLedger,
  summarizePrompt,
  systemPrompt,
  updatePrompt,
} from "./prompt.js";

export interface OpenAISummarizerOptions extends OpenAIConnectionOptions {
  /** Retries after a timeout, 429, 5xx or dropped connection, with backoff. Default 2. */
  maxRetries?: number;
  /** The most tokens the summarizer model may write in one answer; `max_tokens` never exceeds it. Default: half its window. */
  maxOutputTokens?: number;
  /** Chunk summaries written at the same time. Default 4. */
  concurrency?: number;
}

const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_CONCURRENCY = 4;
/** The summary may exceed `maxTokens` by this share before it counts as too large (tokenizers differ). */
const SIZE_TOLERANCE = 1.1;
const MIN_OUTPUT_TOKENS = 256;
/** The template alone takes ~100 tokens: a summary this small is never "larger than its input". */
const SMALL_SUMMARY_TOKENS = 512;
/** Chunk summaries: about this share of their chunk, within bounds. */
const CHUNK_SUMMARY_SHARE = 0.25;
const CHUNK_SUMMARY_MIN = 400;
const CHUNK_SUMMARY_MAX = 4_000;
/** The connection's figures, and how many chunk summaries are written at the same time. */
interface Settings extends Omit<Connection, "transport"> {
  concurrency: number;
}

/** The work of one `summarize` call: its secrets, budgets and calls. */
class SummaryRun {
  private readonly vault: SecretVault = createSecretVault();
  private readonly tally: Tally = { calls: 0, inputTokens: 0 };

  /** Calls made and tokens sent so far. */
  usage(): Tally {
    return { ...this.tally };
  }
  private readonly system = systemPrompt();
  private readonly systemTokens: number;
  private readonly margin: number;
  /** `max_tokens` of the final call. */
  private readonly maxOutput: number;
  private readonly previous: string | undefined;
  private readonly steering: PromptSteering;

  constructor(
    private readonly transport: OpenAITransport,
    private readonly settings: Settings,
    private readonly request: SummarizeRequest,
  ) {
    this.systemTokens = this.count(this.system);
    this.margin = settings.margin + 64;
    this.maxOutput = Math.max(
      MIN_OUTPUT_TOKENS,
      Math.min(request.maxTokens, settings.maxOutputTokens),
    );
    this.previous =
      request.previousSummary !== undefined && request.previousSummary.trim() !== ""
        ? this.redact(request.previousSummary)
        : undefined;
    const optional = (text: string | undefined) =>
      text === undefined ? undefined : this.redact(text);
    this.steering = {
      targetTokens: Math.max(1, Math.min(request.targetTokens, this.maxOutput)),
      maxTokens: this.maxOutput,
      instructions: optional(request.instructions),
      focus: optional(request.focus),
      identifierPolicy: request.identifierPolicy,
      identifierInstructions: optional(request.identifierInstructions),
      ledger: this.redact(renderLedger(request.ledger)),
    };
  }

  private redact(text: string): string {
    return redactSecrets(text, this.vault);
  }

  private count(text: string): number {
    return countTokens(text, this.settings.model);
  }

  private get model(): string {
    return this.settings.model;
  }

  async execute(): Promise<SummarizeResult> {
    const { window } = this.settings;
    const groups = renderGroups(this.request.messages, (text) => this.count(text), {
      transform: (text) => this.redact(text),
    });
    const middleTokens = groups.reduce((sum, group) => sum + group.tokens, 0);
    const previous = this.previous;
    const frame =
      previous === undefined
        ? summarizePrompt("", this.steering)
        : updatePrompt(previous, "", this.steering);
    const singlePromptTokens = this.systemTokens + this.count(frame) + middleTokens + groups.length;

    let summary: string;
    if (singlePromptTokens + this.maxOutput + this.margin <= window) {
      const transcript = joinGroups(groups);
      const prompt =
        previous === undefined
          ? summarizePrompt(transcript, this.steering)
          : updatePrompt(previous, transcript, this.steering);
      summary = await this.finalCall(prompt, singlePromptTokens);
    } else {
      summary = await this.mergeAll(await this.summarizeChunks(groups, middleTokens));
    }

    const restored = restoreSecrets(summary, this.vault);
    const summaryTokens = this.count(restored);
    const materialTokens = middleTokens + (previous === undefined ? 0 : this.count(previous));
    if (summaryTokens > Math.max(materialTokens, SMALL_SUMMARY_TOKENS)) {
      throw new SummarizerError(
        "too_large",
        `the summary (${summaryTokens} tokens) is larger than what it summarizes (${materialTokens} tokens)`,
      );
    }
    if (summaryTokens > this.request.maxTokens * SIZE_TOLERANCE) {
      throw new SummarizerError(
        "too_large",
        `the summary (${summaryTokens} tokens) exceeds the limit of ${this.request.maxTokens} tokens; the server may ignore \`${this.settings.maxTokensParameter}\``,
      );
    }
    // The ledger is carried by code, whatever the model wrote and whatever the identifier policy.
    const missing = missingIdentifiers(restored, this.request.ledger);
    return {
      summary: missing.length === 0 ? restored : appendMissingIdentifiers(restored, missing),
      calls: this.tally.calls,
      inputTokens: this.tally.inputTokens,
    };
  }

  private call(
    messages: ChatMessageParam[],
    maxOutput: number,
    estimatedTokens: number,
  ): Promise<CallAnswer> {
    return this.transport.call(
      messages,
      maxOutput,
      estimatedTokens,
      this.request.signal,
      this.tally,
    );
  }

  /** Checks an answer (refusal, content filter, truncation, emptiness) and returns the summary in it. */
  private accept(answer: CallAnswer, what: string): string {
    return acceptSummaryAnswer(answer, what, this.model, (text) => this.transport.sanitize(text));
  }

  /** The final call (single or merge): the answer must hold every required section; one retry names what is missing. */
  private async finalCall(userPrompt: string, estimatedPromptTokens: number): Promise<string> {
    const first: ChatMessageParam[] = [
      { role: "system", content: this.system },
      // Everything in the prompt was redacted piece by piece; this pass is a backstop.
      { role: "user", content: this.redact(userPrompt) },
    ];
    const answer = this.accept(
      await this.call(first, this.maxOutput, estimatedPromptTokens),
      "the summary",
    );
    const missing = missingSections(answer);
    if (missing.length === 0) return answer;
    const retry: ChatMessageParam[] = [
      ...first,
      { role: "assistant", content: answer },
      { role: "user", content: missingSectionsPrompt(missing) },
    ];
    const retryTokens = estimatedPromptTokens + this.count(answer) + 64;
    const second = this.accept(await this.call(retry, this.maxOutput, retryTokens), "the summary");
    const stillMissing = missingSections(second);
    if (stillMissing.length > 0) {
      throw new SummarizerError(
        "missing_sections",
        `the summarizer (${this.model}) left out required section(s) ${stillMissing.join(", ")} even after being asked again`,
      );
    }
    return second;
  }

  /** Answer size for a chunk of `chunkTokens`. */
  private chunkSummaryTokens(chunkTokens: number): number {
    const wanted = Math.max(CHUNK_SUMMARY_MIN, chunkTokens * CHUNK_SUMMARY_SHARE);
    return Math.round(Math.min(CHUNK_SUMMARY_MAX, wanted, this.maxOutput));
  }

  /** One summary per chunk, at most `concurrency` at a time; the first failure fails the run. */
  private async summarizeChunks(groups: RenderedGroup[], middleTokens: number): Promise<string[]> {
    const { window } = this.settings;
    const averageMessageTokens = middleTokens / Math.max(1, this.request.messages.length);
    const fixed = this.systemTokens + this.count(chunkPrompt("", 1, 1, 1)) + this.margin;
    // A chunk, its prompt and its answer must fit the window together.
    let limit = chunkTokenLimit(window, averageMessageTokens);
    let chunkOutput = this.chunkSummaryTokens(limit);
    if (limit + fixed + chunkOutput > window) {
      limit = Math.max(1, window - fixed - chunkOutput);
      chunkOutput = this.chunkSummaryTokens(limit);
    }
    const fitted = groups.map((group) =>
      group.tokens > limit
        ? squeezeGroup(this.request.messages, group, limit, (text) => this.count(text), {
            transform: (text) => this.redact(text),
          })
        : group,
    );
    const chunks = packChunks(fitted, limit);
    const partials = new Array<string>(chunks.length).fill("");
    let next = 0;
    let failure: unknown;
    let failed = false;
    const worker = async () => {
      while (next < chunks.length && !failed) {
        const index = next;
        next += 1;
        const chunk = chunks[index] ?? [];
        const tokens = chunk.reduce((sum, group) => sum + group.tokens, 0);
        const prompt = chunkPrompt(
          joinGroups(chunk),
          index + 1,
          chunks.length,
          this.chunkSummaryTokens(tokens),
        );
        const messages: ChatMessageParam[] = [
          { role: "system", content: this.system },
          { role: "user", content: this.redact(prompt) },
        ];
        try {
          const answer = await this.call(messages, chunkOutput, fixed - this.margin + tokens);
          partials[index] = this.accept(
            answer,
            `the summary of part ${index + 1} of ${chunks.length}`,
          );
        } catch (error) {
          // The first failure stops the other workers from starting chunks; in-flight ones finish.
          if (!failed) failure = error;
          failed = true;
        }
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(this.settings.concurrency, chunks.length) }, worker),
    );
    if (failed) throw failure;
    return partials;
  }

  /** Merges partial summaries into the final one, first in rounds of neighbours while they do not fit one call. */
  private async mergeAll(partialsIn: string[]): Promise<string> {
    const { window } = this.settings;
    let partials = partialsIn;
    const finalFixed =
      this.systemTokens + this.count(mergePrompt([], this.steering, this.previous)) + this.margin;
    const finalRoom = window - finalFixed - this.maxOutput;
    const roundSteering: PromptSteering = { ...this.steering, ledger: "" };
    const roundRoom =
      window -
      this.systemTokens -
      this.count(mergePrompt([], roundSteering)) -
      this.margin -
      this.maxOutput;
    for (;;) {
      const tokens = partials.map((partial) => this.count(partial));
      const total = tokens.reduce((sum, value) => sum + value, 0);
      if (total <= finalRoom || partials.length <= 1) {
        return this.finalCall(
          mergePrompt(partials, this.steering, this.previous),
          finalFixed - this.margin + total,
        );
      }
      const merged: string[] = [];
      let batch: string[] = [];
      let batchTokens = 0;
      const flush = async () => {
        if (batch.length === 1) merged.push(batch[0] ?? "");
        if (batch.length > 1) {
          const messages: ChatMessageParam[] = [
            { role: "system", content: this.system },
            { role: "user", content: this.redact(mergePrompt(batch, roundSteering)) },
          ];
          const answer = await this.call(
            messages,
            this.maxOutput,
            this.systemTokens + batchTokens + 200,
          );
          merged.push(this.accept(answer, "a merged summary"));
        }
        batch = [];
        batchTokens = 0;
      };
      for (const [index, partial] of partials.entries()) {
        const partialTokens = tokens[index] ?? 0;
        if (batch.length > 0 && batchTokens + partialTokens > roundRoom) await flush();
        batch.push(partial);
        batchTokens += partialTokens;
      }
      await flush();
      if (merged.length >= partials.length) {
        throw new SummarizerError(
          "too_large",
          `the partial summaries do not fit the summarizer's window (${window} tokens) even in pairs; use a summarizer model with a larger context window`,
        );
      }
      partials = merged;
    }
  }
}

/** Builds an LLM summarizer that talks to an OpenAI-compatible Chat Completions endpoint. */
export function openAISummarizer(options: OpenAISummarizerOptions): Summarizer {
  const { transport, ...connection } = openConnection(options, {
    role: "summarizer",
    maxRetries: DEFAULT_MAX_RETRIES,
  });
  const concurrency = nonNegativeInteger("concurrency", options.concurrency, DEFAULT_CONCURRENCY);
  const settings: Settings = { ...connection, concurrency: Math.max(1, concurrency) };
  const model = connection.model;
  return {
    name: `openai:${model}`,
    kind: "llm",
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      if (request.signal?.aborted) throw abortedError();
      const run = new SummaryRun(transport, settings, request);
      try {
        return await run.execute();
      } catch (error) {
        if (SummarizerError.isInstance(error)) error.usage = run.usage();
        throw error;
      }
    },
  };
}
