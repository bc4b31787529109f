/**
 * @module api/schemas
 * Every request and response body of the HTTP API as zod schemas. The same
 * definitions validate requests and generate `GET /openapi.json`, and their
 * inferred types are exported for the typed client (`import type`).
 */

import { itemNestsTooDeep, MAX_ITEM_NESTING } from "@condense/core";
import { z } from "@hono/zod-openapi";

// ---------------------------------------------------------------- shared

export const ErrorResponse = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "invalid_request" }),
      message: z.string(),
      details: z.unknown(),
    }),
  })
  .openapi("Error");

export const MessageFormat = z.enum(["openai", "anthropic", "responses"]).openapi("MessageFormat", {
  description:
    "openai: Chat Completions messages; anthropic: Messages API (`system` separate); responses: Responses API input items",
});

/** A message or item as the client sends it; its shape is checked by the engine per `format`. */
export const InputMessage = z.record(z.string(), z.unknown()).openapi("InputMessage", {
  description:
    "A Chat Completions message, an Anthropic message or a Responses input item, per `format`.",
});

/** A Chat Completions message as the service returns it (the canonical form). */
export const ChatMessage = z
  .looseObject({
    role: z.enum(["system", "developer", "user", "assistant", "tool"]),
    content: z.unknown(),
    name: z.string().optional(),
    tool_calls: z.array(z.unknown()).optional(),
    tool_call_id: z.string().optional(),
  })
  .openapi("ChatMessage");

export const WarningLevel = z.enum(["none", "warning", "critical"]).openapi("WarningLevel", {
  description: "none: fits; warning: over window − reserve; critical: over the window itself",
});

export const SessionIdParam = z.object({
  id: z
    .string()
    // `.` and `..` would be path segments a URL resolves away, so no request could carry them.
    .regex(
      /^(?!\.{1,2}$)[A-Za-z0-9._:-]{1,128}$/,
      "session ids are 1-128 characters of A-Z a-z 0-9 . _ : -, other than . and ..",
    )
    .openapi({ param: { name: "id", in: "path" }, example: "agent-run-42" }),
});

const contextWindowValue = z
  .union([z.number().int().positive(), z.string().regex(/^\s*\d+(\.\d+)?\s*[kKmM]?\s*$/)])
  .openapi({ description: 'Tokens the model accepts: a number or a string such as "128k"' });

const IdentifierPolicy = z.enum(["strict", "custom", "off"]);

const Ledger = z.object({
  identifiers: z.array(z.string()),
  files: z.object({ read: z.array(z.string()), modified: z.array(z.string()) }),
  userRequests: z.array(z.string()),
  summarySha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "expected the 64 lowercase hex digits a previous result returned")
    .optional()
    .openapi({
      description:
        "SHA-256 of the summary the result left in its messages; only the message carrying exactly that summary is recognised as one by the next compaction",
    }),
});

// ---------------------------------------------------------------- POST /v1/compact

export const CompactOptionsBody = z
  .strictObject({
    contextWindow: contextWindowValue.optional(),
    threshold: z.number().gt(0).lte(1).optional(),
    reserveTokens: z.number().int().nonnegative().optional(),
    maxOutputTokens: z.number().int().nonnegative().optional(),
    headMessages: z.number().int().nonnegative().optional(),
    tailTokens: z.number().int().nonnegative().optional(),
    minTailMessages: z.number().int().nonnegative().optional(),
    identifierPolicy: IdentifierPolicy.optional(),
    identifierInstructions: z.string().max(20_000).optional(),
    instructions: z.string().max(20_000).optional(),
    focus: z.string().max(20_000).optional(),
    force: z.boolean().optional(),
    summaryMinTokens: z.number().int().nonnegative().optional(),
    summaryMaxTokens: z.number().int().positive().optional(),
    ledger: Ledger.optional().openapi({
      description:
        "The `ledger` of the previous result for this conversation, unchanged: it carries identifiers and files forward, and without it no message is recognised as the previous summary",
    }),
  })
  .openapi("CompactOptions");

export const CompactRequest = z
  .strictObject({
    model: z.string().min(1).max(200),
    messages: z.array(InputMessage).min(1),
    format: MessageFormat.optional(),
    system: z.unknown().optional().openapi({ description: "Anthropic top-level `system`" }),
    options: CompactOptionsBody.optional(),
  })
  .openapi("CompactRequest");

export const PrunedToolOutput = z.object({
  toolCallId: z.string(),
  occurrence: z.number().int().openapi({
    description:
      "Which call with this id in the input the output answers, from 1 (ids that a server numbers afresh every turn name several calls)",
  }),
  toolName: z.string(),
  content: z.string(),
  tokens: z.number().int(),
});

export const CompactResponse = z
  .object({
    compacted: z.boolean(),
    messages: z.array(z.unknown()),
    system: z.unknown().optional(),
    summary: z.string().nullable(),
    tier: z.number().int().min(0).max(4),
    originalCount: z.number().int(),
    finalCount: z.number().int(),
    originalTokens: z.number().int(),
    finalTokens: z.number().int(),
    contextWindow: z.number().int(),
    budget: z.number().int(),
    warningLevel: WarningLevel,
    prunedToolOutputs: z.array(PrunedToolOutput),
    ledger: Ledger,
    passes: z.number().int(),
    reason: z.string().optional(),
    summarizerFailure: z
      .object({ kind: z.string(), message: z.string(), retryAfter: z.number().optional() })
      .optional(),
    cooldownUntil: z.number().optional(),
    summarizerCalls: z.number().int(),
    summarizerInputTokens: z.number().int(),
  })
  .openapi("CompactResult");

// ---------------------------------------------------------------- sessions

export const AppendRequest = z
  .strictObject({
    messages: z.array(InputMessage).min(1),
    format: MessageFormat.optional(),
    system: z.unknown().optional().openapi({ description: "Anthropic top-level `system`" }),
    model: z.string().min(1).max(200).optional(),
    usage: z.strictObject({ inputTokens: z.number().int().nonnegative() }).optional().openapi({
      description:
        "What the provider reported for the last call; calibrates the token estimate of non-OpenAI models",
    }),
  })
  .openapi("AppendRequest");

export const CompactionStatus = z
  .enum(["none", "scheduled", "running"])
  .openapi("CompactionStatus", {
    description: "none: nothing pending; scheduled: queued in the background; running: in progress",
  });

export const AppendResponse = z
  .object({
    sessionId: z.string(),
    appended: z.number().int(),
    firstSeq: z.number().int(),
    lastSeq: z.number().int(),
    messageCount: z.number().int().openapi({ description: "Messages in the transcript" }),
    tokens: z.number().int().openapi({ description: "Tokens of the current context" }),
    contextWindow: z.number().int(),
    threshold: z
      .number()
      .int()
      .openapi({ description: "Context tokens at which compaction triggers" }),
    warningLevel: WarningLevel,
    compaction: z.object({ status: CompactionStatus }),
  })
  .openapi("AppendResponse");

const providerDataDescription =
  "Keep each message's `provider_data` (Anthropic thinking blocks with their signatures, a tool result's error flag, Responses reasoning items) in the openai format, which leaves it out by default because OpenAI rejects fields it does not know: ask for it only to read the messages yourself (the AI SDK middleware does), and strip it before sending them to OpenAI. The anthropic and responses formats always carry it in their own blocks and items.";

export const ContextQuery = z.object({
  format: MessageFormat.optional().openapi({ param: { name: "format", in: "query" } }),
  providerData: z
    .enum(["true", "false"])
    .optional()
    .openapi({
      param: { name: "providerData", in: "query" },
      description: providerDataDescription,
    }),
});

export const ContextResponse = z
  .object({
    sessionId: z.string(),
    format: MessageFormat,
    messages: z.array(z.unknown()),
    system: z.unknown().optional(),
    messageCount: z.number().int(),
    tokens: z.number().int(),
    contextWindow: z.number().int(),
    budget: z.number().int().openapi({ description: "window − reserve" }),
    warningLevel: WarningLevel,
    summary: z.string().nullable(),
    coveredSeq: z.number().int().openapi({
      description: "Transcript messages up to this seq are represented by the compacted view",
    }),
    lastSeq: z.number().int(),
    compaction: z.object({ status: CompactionStatus, waited: z.boolean() }),
    memory: z
      .object({
        status: z.enum(["included", "unavailable"]),
        entries: z.number().int(),
        tokens: z.number().int(),
      })
      .optional()
      .openapi({
        description:
          "With the session's `memory` setting on: how many of the user's memories the context holds (one fenced user message after the leading system and pinned messages) and their tokens, counted in `tokens`; `unavailable` when they could not be fetched (the context is served without them)",
      }),
  })
  .openapi("ContextResponse");

export const ManualCompactRequest = z
  .strictObject({
    instructions: z.string().max(20_000).optional(),
    focus: z.string().max(20_000).optional(),
  })
  .openapi("ManualCompactRequest");

export const CompactionEvent = z
  .object({
    id: z.number().int(),
    at: z.string().openapi({ description: "ISO time" }),
    trigger: z.string(),
    strategy: z.enum(["local", "openai"]),
    tier: z.number().int(),
    tokensBefore: z.number().int().openapi({
      description:
        "Context tokens before: the sum of the messages' stored counts, pinned messages and calibration excluded (the compaction's log line carries the same figures)",
    }),
    tokensAfter: z.number().int(),
    range: z.object({ fromSeq: z.number().int(), toSeq: z.number().int() }).openapi({
      description:
        "Transcript seqs this compaction folded in: from after the previous view up to the last seq of its snapshot",
    }),
    summary: z.string().nullable(),
    summarizer: z.string().nullable(),
    summarizerFailure: z.object({ kind: z.string(), message: z.string() }).nullable(),
    prunedToolOutputs: z.number().int(),
    passes: z.number().int(),
    durationMs: z.number().int().nullable().openapi({
      description:
        "Milliseconds from the snapshot to the commit, the summarizer's time included; null for compactions recorded before durations were kept",
    }),
    fallback: z.object({ failedAttempts: z.number().int(), error: z.string() }).nullable().openapi({
      description:
        "Set when the configured compaction (settings, summarizer, strategy) threw and this one is the deterministic fallback: how many configured attempts failed in a row, and the last error",
    }),
  })
  .openapi("CompactionEvent");

export const ManualCompactResponse = z
  .object({
    sessionId: z.string(),
    compacted: z.boolean(),
    reason: z.string().optional(),
    event: CompactionEvent.nullable(),
    tokens: z.number().int(),
    warningLevel: WarningLevel,
  })
  .openapi("ManualCompactResponse");

export const OverflowRequest = z
  .strictObject({
    error: z.strictObject({
      status: z.number().int().optional(),
      message: z.string().max(100_000),
      // Counted as every stage counts a provider's payload (core `messages/limits`); deeper bodies
      // no provider sends, and they could not reach the session's object (RPC copies recurse).
      body: z
        .unknown()
        .optional()
        .refine((body) => !itemNestsTooDeep(body), {
          message: `nests objects/arrays more than ${MAX_ITEM_NESTING} levels deep; send the provider's error body as it came`,
        }),
    }),
    format: MessageFormat.optional(),
    providerData: z.boolean().optional().openapi({ description: providerDataDescription }),
  })
  .openapi("OverflowRequest");

export const OverflowResponse = ContextResponse.extend({
  passes: z.number().int(),
  reportedTokens: z.number().int().nullable(),
}).openapi("OverflowResponse");

export const SessionSettings = z
  .object({
    model: z.string().nullable(),
    contextWindow: z.number().int().nullable(),
    threshold: z.number().nullable(),
    reserveTokens: z.number().int().nullable(),
    tailTokens: z.number().int().nullable(),
    identifierPolicy: IdentifierPolicy.nullable(),
    identifierInstructions: z.string().nullable(),
    pinned: z.array(ChatMessage),
    summarizerModel: z.string().nullable(),
    strategy: z.enum(["local", "openai"]),
    recall: z.boolean().openapi({
      description: "The summary says earlier details can be recalled with the `recall` tool",
    }),
    memory: z.boolean().openapi({
      description:
        "The user's memories are flushed before compaction and inserted in `/context` (default false)",
    }),
    memoryTokens: z
      .number()
      .int()
      .openapi({ description: "Token budget of the memory block in `/context` (default 2000)" }),
  })
  .openapi("SessionSettings", { description: "null: the default applies" });

export const SettingsPatch = z
  .strictObject({
    model: z.string().min(1).max(200).nullable().optional(),
    contextWindow: contextWindowValue.nullable().optional(),
    threshold: z.number().gt(0).lte(1).nullable().optional(),
    reserveTokens: z.number().int().nonnegative().nullable().optional(),
    tailTokens: z.number().int().nonnegative().nullable().optional(),
    identifierPolicy: IdentifierPolicy.nullable().optional(),
    identifierInstructions: z.string().max(20_000).nullable().optional(),
    pinned: z.array(InputMessage).max(50).nullable().optional().openapi({
      description:
        "Chat Completions messages (system, developer, user or assistant without tool calls) re-injected after the leading system messages of every context",
    }),
    summarizerModel: z.string().min(1).max(200).nullable().optional(),
    strategy: z.enum(["local", "openai"]).nullable().optional(),
    recall: z.boolean().nullable().optional().openapi({
      description:
        "The summary says, in one line, that earlier details can be recalled with the `recall` tool",
    }),
    memory: z.boolean().nullable().optional().openapi({
      description:
        "Flush before compaction: what matters in the compacted range is written to the user's memory",
    }),
    memoryTokens: z.number().int().min(0).max(32_000).nullable().optional(),
  })
  .openapi("SettingsPatch");

export const SessionStatus = z
  .object({
    sessionId: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    model: z.string(),
    messageCount: z.number().int(),
    transcriptTokens: z.number().int(),
    contextTokens: z.number().int(),
    contextMessageCount: z.number().int(),
    contextWindow: z.number().int(),
    budget: z.number().int(),
    warningLevel: WarningLevel,
    coveredSeq: z.number().int(),
    lastSeq: z.number().int(),
    compactions: z.number().int(),
    lastCompaction: CompactionEvent.nullable(),
    compaction: z.object({
      status: CompactionStatus,
      failure: z
        .object({
          at: z.string().openapi({ description: "ISO time of the last failure" }),
          message: z.string(),
          failedAttempts: z.number().int().openapi({
            description: "Configured compactions that threw in a row",
          }),
          nextAttemptAt: z.string().nullable().openapi({
            description:
              "ISO time the background compaction is tried again; null once it fell back to the deterministic tier",
          }),
        })
        .nullable()
        .openapi({
          description:
            "The configured compaction keeps throwing (compactions fall back to the deterministic tier); null while it works. Cleared by the next compaction that works, or by a PATCH",
        }),
    }),
    generation: z.number().int().openapi({
      description:
        "The session's current generation: 1, and one more each time a gateway request sent a history that did not extend the session's (the context is built from the current generation; `/transcript?generation=` reads an earlier one)",
    }),
    overheadTokens: z.number().int().openapi({
      description:
        "What the latest gateway request sent beside its messages that the provider counts as input (its tool definitions, Responses `instructions`), in tokens: the window keeps room for it, so `budget` is what the messages may hold beside it. 0 for sessions appended to only through `/messages`",
    }),
    learnedContextWindow: z.number().int().nullable().openapi({
      description:
        "The window a provider's overflow error stated for the session's model, when it was below the one in use; `contextWindow` is the smaller of it and the configured one. Null when none was learned (or the model changed since)",
    }),
    cooldownUntil: z
      .string()
      .nullable()
      .openapi({ description: "ISO time until which LLM summaries are skipped" }),
    calibration: z.object({ ratio: z.number(), samples: z.number().int() }),
    settings: SessionSettings,
  })
  .openapi("SessionStatus");

export const DeleteResponse = z
  .object({ sessionId: z.string(), deleted: z.literal(true), messageCount: z.number().int() })
  .openapi("DeleteResponse");

export const CompactionsResponse = z
  .object({ sessionId: z.string(), compactions: z.array(CompactionEvent) })
  .openapi("CompactionsResponse");

export const ToolOutputParams = SessionIdParam.extend({
  toolCallId: z
    .string()
    .min(1)
    .max(512)
    .openapi({ param: { name: "toolCallId", in: "path" } }),
});

export const ToolOutputQuery = z.object({
  seq: z.coerce
    .number()
    .int()
    .positive()
    .optional()
    .openapi({
      param: { name: "seq", in: "query" },
      description:
        "The transcript seq of the output wanted, for an id several calls used (a server that numbers calls `call_0`… every turn); default: the latest output of the id",
    }),
});

export const ToolOutputResponse = z
  .object({
    toolCallId: z.string(),
    toolName: z.string().nullable(),
    content: z.unknown().openapi({ description: "The tool message's content exactly as appended" }),
    seq: z.number().int().openapi({ description: "The transcript seq of this output" }),
    occurrence: z.number().int().openapi({
      description: "Which call with this id of the session it answers: 1 for the first",
    }),
    previousSeq: z.number().int().nullable().openapi({
      description: "The seq of the output of the previous call with the same id, or null",
    }),
    nextSeq: z.number().int().nullable().openapi({
      description: "The seq of the output of the next call with the same id, or null",
    }),
    tokens: z.number().int(),
    pruned: z
      .boolean()
      .openapi({ description: "Whether a compaction removed it from the context" }),
  })
  .openapi("ToolOutputResponse");

export const TranscriptQuery = z.object({
  after: z.coerce
    .number()
    .int()
    .nonnegative()
    .optional()
    .openapi({
      param: { name: "after", in: "query" },
      description: "Return messages with seq > after",
    }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .openapi({ param: { name: "limit", in: "query" }, description: "Default 100" }),
  generation: z.coerce
    .number()
    .int()
    .positive()
    .optional()
    .openapi({
      param: { name: "generation", in: "query" },
      description:
        "Only the messages of this generation of the session (see the gateway): its page ends at the generation's last message",
    }),
});

export const TranscriptEntry = z.object({
  seq: z.number().int(),
  role: z.string(),
  tokens: z.number().int(),
  createdAt: z.string(),
  message: ChatMessage,
});

export const TranscriptResponse = z
  .object({
    sessionId: z.string(),
    generation: z
      .number()
      .int()
      .optional()
      .openapi({ description: "The generation asked for with `?generation=`" }),
    messages: z.array(TranscriptEntry),
    nextAfter: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Pass as `after` for the next page; null at the end" }),
  })
  .openapi("TranscriptResponse");

// ---------------------------------------------------------------- recall (GET /v1/sessions/{id}/search)

export const SearchRole = z.enum(["system", "developer", "user", "assistant", "tool"]);

export const SearchQuery = z.object({
  q: z
    .string()
    .max(2_000)
    .optional()
    .openapi({
      param: { name: "q", in: "query" },
      description:
        "Words to find (BM25 ranking; every word first, then any word when no message has them all). Plain text: quotes and FTS5 operators are searched as text, not interpreted.",
      example: "migration ticket",
    }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(50)
    .optional()
    .openapi({ param: { name: "limit", in: "query" }, description: "1-50, default 10" }),
  role: SearchRole.optional().openapi({
    param: { name: "role", in: "query" },
    description: "Only messages of this role",
  }),
  after: z.coerce
    .number()
    .int()
    .nonnegative()
    .optional()
    .openapi({
      param: { name: "after", in: "query" },
      description: "Only messages with seq > after",
    }),
});

export const SearchResult = z.object({
  seq: z.number().int().openapi({ description: "The message's transcript seq" }),
  role: z.string(),
  toolCallId: z.string().nullable().openapi({
    description:
      "A tool message's tool_call_id, or the (first) call an assistant message makes; pass it to /tool-outputs/{toolCallId}",
  }),
  toolName: z.string().nullable(),
  snippet: z.string().openapi({ description: "An excerpt with the matches marked «like this»" }),
  score: z.number().openapi({
    description:
      "Relevance, higher is better: negated BM25, or with semantic recall configured (VECTORIZE and AI) the reciprocal-rank fusion of the BM25 and embedding ranks",
  }),
  inContext: z.boolean().openapi({
    description:
      "Whether the message is still in the context as appended: after the last compaction's view, in the current generation, and not a pruned tool output",
  }),
  pruned: z
    .boolean()
    .openapi({ description: "A tool output a compaction replaced by a placeholder" }),
});

export const SearchResponse = z
  .object({
    query: z.string(),
    results: z.array(SearchResult),
    indexing: z.object({
      complete: z.boolean().openapi({
        description:
          "false while messages appended before search existed are still being indexed (results may miss them; ask again)",
      }),
    }),
  })
  .openapi("SearchResponse");

// ---------------------------------------------------------------- OpenAI forwarding

export const ResponsesCompactRequest = z
  .looseObject({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(z.unknown())]),
  })
  .openapi("ResponsesCompactRequest", {
    description: "Forwarded as-is to OpenAI `POST /responses/compact`",
  });

export const ResponsesCompactResponse = z
  .looseObject({ output: z.array(z.unknown()) })
  .openapi("ResponsesCompactResponse", { description: "OpenAI's answer, as-is" });

// ---------------------------------------------------------------- gateway (/v1/gateway/{upstream})

const streamFlag = z.boolean().nullable().optional();

/**
 * The history of a gateway request: checked message by message by the engine when it is converted
 * (`invalid_messages` names each problem), so the schema only says it is a non-empty list; a
 * 150k-token history is then not walked twice.
 */
const gatewayHistory = z
  .array(z.unknown())
  .min(1)
  .openapi({ description: "The whole history, as the protocol writes it" });

export const GatewayChatRequest = z
  .looseObject({
    model: z.string().min(1).max(200),
    messages: gatewayHistory,
    stream: streamFlag,
  })
  .openapi("GatewayChatRequest", {
    description:
      "An OpenAI Chat Completions request: `messages` is the whole history; every other field is forwarded untouched",
  });

export const GatewayResponsesRequest = z
  .looseObject({
    model: z.string().min(1).max(200),
    input: z.union([z.string(), z.array(z.unknown())]).optional(),
    stream: streamFlag,
    previous_response_id: z.string().nullable().optional(),
    conversation: z.unknown().optional(),
  })
  .openapi("GatewayResponsesRequest", {
    description:
      "An OpenAI Responses request: `input` is the whole history; a request chaining `previous_response_id` or a `conversation` is forwarded unchanged (its history lives on OpenAI's side)",
  });

export const GatewayMessagesRequest = z
  .looseObject({
    model: z.string().min(1).max(200),
    messages: gatewayHistory,
    system: z.unknown().optional(),
    max_tokens: z.number().int().positive().optional(),
    stream: streamFlag,
  })
  .openapi("GatewayMessagesRequest", {
    description:
      "An Anthropic Messages request: `system` and `messages` are the whole history; every other field is forwarded untouched",
  });

export const GatewayUpstreamParam = z.object({
  upstream: z
    .string()
    .openapi({ param: { name: "upstream", in: "path" }, example: "openai" })
    .describe("A name the deployment configures: openai, anthropic, or one of GATEWAY_UPSTREAMS"),
});

export const GatewayHeaders = z.object({
  "X-Condense-Key": z
    .string()
    .optional()
    .openapi({
      param: { name: "X-Condense-Key", in: "header" },
      description:
        "Your Condense API key or JWT; `Authorization` (or `x-api-key`) is then your provider key, passed upstream untouched. Without it, `Authorization` is the Condense credential and the upstream gets the deployment's own key",
    }),
  "X-Condense-Session": z
    .string()
    .optional()
    .openapi({
      param: { name: "X-Condense-Session", in: "header" },
      description:
        "The session (same ids and per-user isolation as /v1/sessions/{id}); without it the request is compacted in place when it does not fit, and nothing is stored",
    }),
  "X-Condense-Context-Window": z
    .string()
    .optional()
    .openapi({
      param: { name: "X-Condense-Context-Window", in: "header" },
      description:
        'The model\'s window (a number or "128k"), where the model table does not know it; a session keeps it as its `contextWindow` setting',
    }),
});

export const GatewayChatCompletion = z
  .looseObject({ choices: z.array(z.unknown()) })
  .openapi("GatewayChatCompletion", {
    description: "The upstream's answer as it sent it (or its stream of events)",
  });

export const GatewayResponse = z
  .looseObject({ output: z.array(z.unknown()) })
  .openapi("GatewayResponse", {
    description: "The upstream's answer as it sent it (or its stream of events)",
  });

export const GatewayMessage = z
  .looseObject({ content: z.array(z.unknown()) })
  .openapi("GatewayMessage", {
    description: "The upstream's answer as it sent it (or its stream of events)",
  });

export const GatewayModels = z
  .looseObject({ data: z.array(z.unknown()) })
  .openapi("GatewayModels", { description: "The upstream's list of models, as it sent it" });

// ---------------------------------------------------------------- the user's sessions and memory

const cursorParam = z
  .string()
  .min(1)
  .max(512)
  .optional()
  .openapi({
    param: { name: "cursor", in: "query" },
    description: "`nextCursor` of the previous page; leave it out for the first page",
  });

const pageLimit = (max: number, byDefault: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .optional()
    .openapi({
      param: { name: "limit", in: "query" },
      description: `1-${max}, default ${byDefault}`,
    });

export const SessionListQuery = z.object({ limit: pageLimit(100, 20), cursor: cursorParam });

export const SessionListEntry = z
  .object({
    id: z.string(),
    model: z.string(),
    createdAt: z.string(),
    lastActiveAt: z.string().openapi({ description: "ISO time of the session's last change" }),
    messageCount: z.number().int(),
    tokens: z.number().int().openapi({ description: "Context tokens, as the session's status" }),
    compactions: z.number().int(),
  })
  .openapi("SessionListEntry");

export const SessionListResponse = z
  .object({
    sessions: z.array(SessionListEntry),
    nextCursor: z
      .string()
      .nullable()
      .openapi({ description: "Pass as `cursor` for the next page; null at the end" }),
  })
  .openapi("SessionListResponse");

export const MemoryKindName = z.enum(["fact", "preference", "constraint", "decision"]);

export const MemoryEntry = z
  .object({
    id: z.string(),
    text: z.string(),
    kind: MemoryKindName,
    sourceSession: z.string().nullable(),
    sourceSeq: z.number().int().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("MemoryEntry");

export const MemoryIdParam = z.object({
  memoryId: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "memoryId", in: "path" }, example: "mem_4f1c…" }),
});

export const MemoryListQuery = z.object({ limit: pageLimit(100, 50), cursor: cursorParam });

export const MemoryListResponse = z
  .object({ memories: z.array(MemoryEntry), nextCursor: z.string().nullable() })
  .openapi("MemoryListResponse");

const memoryText = z.string().openapi({
  description:
    "1-2000 characters (longer: 400 `memory_too_long`); text holding a secret is refused (422 `memory_secret`)",
});

export const MemoryCreateRequest = z
  .strictObject({
    text: memoryText,
    kind: MemoryKindName,
    sourceSession: z.string().min(1).max(128).optional(),
    sourceSeq: z.number().int().positive().optional(),
  })
  .openapi("MemoryCreateRequest");

export const MemoryPatchRequest = z
  .strictObject({ text: memoryText.optional(), kind: MemoryKindName.optional() })
  .openapi("MemoryPatchRequest");

export const MemoryDeleteResponse = z
  .object({ deleted: z.literal(true), id: z.string() })
  .openapi("MemoryDeleteResponse");

export const MemorySearchQuery = z.object({
  q: z
    .string()
    .max(2000)
    .openapi({
      param: { name: "q", in: "query" },
      description: "Words to find (all of them); operators are matched as words",
    }),
  limit: pageLimit(50, 10),
});

export const MemorySearchResponse = z
  .object({
    query: z.string(),
    results: z.array(
      z.object({
        memory: MemoryEntry,
        snippet: z.string().openapi({ description: "The matching words marked «like this»" }),
        score: z.number().openapi({ description: "Higher is better" }),
      }),
    ),
  })
  .openapi("MemorySearchResponse");

// ---------------------------------------------------------------- meta

export const HealthResponse = z.object({ ok: z.literal(true) }).openapi("Health");

export const OpenAPIDocument = z
  .looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) })
  .openapi("OpenAPIDocument", { description: "An OpenAPI 3.1 document" });

// ---------------------------------------------------------------- inferred types for clients

export type ErrorResponseBody = z.infer<typeof ErrorResponse>;
export type CompactRequestBody = z.input<typeof CompactRequest>;
export type CompactResponseBody = z.infer<typeof CompactResponse>;
export type AppendRequestBody = z.input<typeof AppendRequest>;
export type AppendResponseBody = z.infer<typeof AppendResponse>;
export type ContextResponseBody = z.infer<typeof ContextResponse>;
export type ManualCompactRequestBody = z.input<typeof ManualCompactRequest>;
export type ManualCompactResponseBody = z.infer<typeof ManualCompactResponse>;
export type OverflowRequestBody = z.input<typeof OverflowRequest>;
export type OverflowResponseBody = z.infer<typeof OverflowResponse>;
export type SessionSettingsBody = z.infer<typeof SessionSettings>;
export type SettingsPatchBody = z.input<typeof SettingsPatch>;
export type SessionStatusBody = z.infer<typeof SessionStatus>;
export type DeleteResponseBody = z.infer<typeof DeleteResponse>;
export type CompactionEventBody = z.infer<typeof CompactionEvent>;
export type CompactionsResponseBody = z.infer<typeof CompactionsResponse>;
export type ToolOutputResponseBody = z.infer<typeof ToolOutputResponse>;
export type TranscriptResponseBody = z.infer<typeof TranscriptResponse>;
export type SearchQueryParams = z.input<typeof SearchQuery>;
export type SearchResultBody = z.infer<typeof SearchResult>;
export type SearchResponseBody = z.infer<typeof SearchResponse>;
export type ResponsesCompactRequestBody = z.input<typeof ResponsesCompactRequest>;
export type ResponsesCompactResponseBody = z.infer<typeof ResponsesCompactResponse>;
export type HealthResponseBody = z.infer<typeof HealthResponse>;
export type OpenAPIDocumentBody = z.infer<typeof OpenAPIDocument>;
export type SessionListResponseBody = z.infer<typeof SessionListResponse>;
export type MemoryEntryBody = z.infer<typeof MemoryEntry>;
export type MemoryListResponseBody = z.infer<typeof MemoryListResponse>;
export type MemoryCreateRequestBody = z.input<typeof MemoryCreateRequest>;
export type MemoryPatchRequestBody = z.input<typeof MemoryPatchRequest>;
export type MemoryDeleteResponseBody = z.infer<typeof MemoryDeleteResponse>;
export type MemorySearchResponseBody = z.infer<typeof MemorySearchResponse>;
export type MessageFormatName = z.infer<typeof MessageFormat>;
