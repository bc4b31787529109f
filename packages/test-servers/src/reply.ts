/**
 * @module reply
 * The one way every test server is scripted: a handler returns a `Reply` for
 * each model request, whatever the protocol — an answer (text, reasoning,
 * tool calls, a refusal, how it finished, its usage), an error in the
 * protocol's shape, any raw body, an answer cut short, or none at all — and
 * how it is paced (a delay first, pauses between stream events, a stream that
 * stalls). Each protocol module (`protocols/*`) renders an `Answer` in its own
 * wire format.
 */

import type { Violation } from "./rules/violation.ts";

/** A tool call in an answer: a function's (JSON arguments) or, with `custom`, a custom tool's. */
export interface ToolCallReply {
  /** The call id (`call_id` in Responses, the `tool_use` id in Anthropic). */
  id: string;
  name: string;
  /** The arguments as JSON text; a custom tool's free-form input. */
  arguments: string;
  /** A custom tool's call (Codex's `apply_patch`): Chat `type: "custom"`, Responses `custom_tool_call`. */
  custom?: boolean;
}

export type FinishReason = "stop" | "length" | "content_filter" | "tool_calls";

/** Tokens an answer reports (in the protocol's own names: `input_tokens`, `prompt_tokens`, …). */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Of `prompt_tokens`, those read from the prompt cache (each protocol reports them its way). */
  cache_read_tokens?: number;
  /** Of `prompt_tokens`, those written to the prompt cache (Anthropic, and OpenAI from GPT-5.6 on). */
  cache_write_tokens?: number;
}

/** A model's answer with every default filled in, as the protocol modules render it. */
export interface Answer {
  /** The answer's text; `null`: none (Chat's `content: null`). */
  text: string | null;
  refusal: string | null;
  /** Reasoning shown before the answer: a signed Anthropic thinking block, a sealed Responses reasoning item. */
  thinking: string | null;
  toolCalls: ToolCallReply[];
  finishReason: FinishReason;
  /** `null`: the answer reports none. */
  usage: Usage | null;
  /** Anthropic: the answer's content blocks, given as they are (for text, thinking and calls). */
  blocks?: unknown[];
  /** Responses: the answer's output items, given as they are. */
  items?: unknown[];
  /** Anthropic: the response's `diagnostics` (why the prompt cache missed), given as they are. */
  diagnostics?: unknown;
  /** Anthropic: the message's `id` (default `msg_<serial>`), for a harness that must know it ahead. */
  id?: string;
}

/** What a `completion` reply may set of its answer; the rest takes the defaults. */
export interface AnswerFields {
  /** Default `""`, or `null` when the answer has tool calls. */
  content?: string | null;
  refusal?: string | null;
  thinking?: string | null;
  toolCalls?: ToolCallReply[];
  /** Default `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: FinishReason;
  /** Default: rough counts (characters / 4); `null` reports none. */
  usage?: Usage | null;
  blocks?: unknown[];
  items?: unknown[];
  diagnostics?: unknown;
  id?: string;
}

export type Reply =
  | ({
      type: "completion";
      /** Pause between two events of a stream. */
      slowMs?: number;
      /** A stream sends its opening events (the start, a first delta), then nothing. */
      stall?: boolean;
      delayMs?: number;
    } & AnswerFields)
  | ({
      type: "error";
      /** Default `scripted error <status>`. */
      message?: string;
      headers?: Record<string, string>;
      delayMs?: number;
    } & Omit<Violation, "message">)
  | {
      type: "raw";
      body: string;
      status?: number;
      contentType?: string;
      headers?: Record<string, string>;
      delayMs?: number;
    }
  | {
      type: "truncated";
      content: string;
      /** Keep the connection open and silent instead of cutting it. */
      stall?: boolean;
      delayMs?: number;
    }
  | { type: "hang"; delayMs?: number };

/** The answer a `completion` reply scripts, `roughUsage` standing in for usage it leaves out. */
export function answerOf(fields: AnswerFields, roughUsage: (text: string) => Usage): Answer {
  const toolCalls = fields.toolCalls ?? [];
  const text = fields.content === undefined ? (toolCalls.length > 0 ? null : "") : fields.content;
  return {
    text,
    refusal: fields.refusal ?? null,
    thinking: fields.thinking ?? null,
    toolCalls,
    finishReason: fields.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
    usage: fields.usage === undefined ? roughUsage(text ?? "") : fields.usage,
    ...(fields.blocks === undefined ? {} : { blocks: fields.blocks }),
    ...(fields.items === undefined ? {} : { items: fields.items }),
    ...(fields.diagnostics === undefined ? {} : { diagnostics: fields.diagnostics }),
    ...(fields.id === undefined ? {} : { id: fields.id }),
  };
}
