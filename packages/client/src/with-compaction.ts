/**
 * @module with-compaction
 * `withCompaction(client, { session })`: one entry point for the SDK clients
 * Condense wraps. It tells them apart by shape (an `openai` client has
 * `chat.completions`, an Anthropic client `messages`), so it needs neither SDK
 * at run time; its overloads give each the SDK's own types.
 */

import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { type CompactingAnthropic, withAnthropicCompaction } from "./anthropic-compaction.js";
import {
  type CompactingOpenAI,
  type OpenAICompactionOptions,
  withOpenAICompaction,
} from "./openai-compaction.js";

/**
 * Options of `withCompaction`. `streamUsage` applies to `openai` clients only (Anthropic streams
 * always carry usage).
 */
export type WithCompactionOptions = OpenAICompactionOptions;

function has(value: unknown, path: readonly string[]): boolean {
  let current: unknown = value;
  for (const key of path) {
    if ((typeof current !== "object" && typeof current !== "function") || current === null)
      return false;
    current = (current as Record<string, unknown>)[key];
  }
  return typeof current === "function";
}

/**
 * Wraps an `openai` client (`chat.completions.create`, `responses.create`) or an Anthropic client
 * (`messages.create`, `messages.stream`) so that its calls run on a Condense session: each call
 * appends what is new, sends the session's compacted context, appends the answer and recovers
 * from context overflows. Everything else is the client as it was.
 *
 * ```ts
 * const ai = withCompaction(new OpenAI(), { session: condense.session("run-42") });
 * const claude = withCompaction(new Anthropic(), { session: condense.session("run-43") });
 * ```
 */
export function withCompaction<C extends OpenAI>(
  client: C,
  options: WithCompactionOptions,
): CompactingOpenAI<C>;
export function withCompaction<C extends Anthropic>(
  client: C,
  options: WithCompactionOptions,
): CompactingAnthropic<C>;
export function withCompaction(
  client: OpenAI | Anthropic,
  options: WithCompactionOptions,
): unknown {
  if (has(client, ["chat", "completions", "create"]))
    return withOpenAICompaction(client as OpenAI, options);
  if (has(client, ["messages", "create"]))
    return withAnthropicCompaction(client as Anthropic, options);
  throw new TypeError(
    "withCompaction: expected an `openai` client (new OpenAI()) or an Anthropic client (new Anthropic()); got an object with neither chat.completions.create nor messages.create. For the AI SDK use condenseMiddleware with wrapLanguageModel",
  );
}
