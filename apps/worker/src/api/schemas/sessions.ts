/**
 * @module api/schemas/sessions
 * The session routes (`/v1/sessions/{id}…`): append, context, manual and
 * overflow compactions, settings and status, deletion, the compaction history,
 * tool outputs and the transcript.
 */

import { itemNestsTooDeep, MAX_ITEM_NESTING } from "@condense/core";
import { z } from "@hono/zod-openapi";
import * as fields from "./fields.js";
import { queryParam } from "./params.js";
import {
  ChatMessage,
  InputMessage,
  MessageFormat,
  SessionIdParam,
  WarningLevel,
} from "./shared.js";

export const AppendRequest = z
  .strictObject({
    messages: z.array(InputMessage).min(1),
    format: MessageFormat.optional(),
    system: z.unknown().optional().openapi({ description: "Anthropic top-level `system`" }),
    model: fields.ModelName.optional(),
    usage: z
      .strictObject({
        inputTokens: z.number().int().nonnegative().openapi({
          description:
            "Every input token of the prompt, cached ones included (Chat Completions `prompt_tokens`, Responses `input_tokens`, Anthropic `input_tokens` + `cache_read_input_tokens` + `cache_creation_input_tokens`)",
        }),
        cacheReadTokens: z.number().int().nonnegative().optional().openapi({
          description:
            "Of them, read from the provider's prompt cache (Anthropic `cache_read_input_tokens`, `prompt_tokens_details.cached_tokens`, `input_tokens_details.cached_tokens`)",
        }),
        cacheWriteTokens: z.number().int().nonnegative().optional().openapi({
          description:
            "Of them, written to the prompt cache (Anthropic `cache_creation_input_tokens`)",
        }),
      })
      .refine(
        (usage) =>
          (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0) <= usage.inputTokens,
        {
          message:
            "cacheReadTokens + cacheWriteTokens cannot exceed inputTokens, which counts every input token, cached ones included (for Anthropic add cache_read_input_tokens and cache_creation_input_tokens to input_tokens)",
        },
      )
      .optional()
      .openapi({
        description:
          "What the provider reported for the last call (the context last fetched): calibrates the token estimate of non-OpenAI models, and its cached tokens join the session's bill",
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
  format: queryParam("format", MessageFormat.optional()),
  providerData: queryParam("providerData", z.enum(["true", "false"]).optional(), {
    description: providerDataDescription,
  }),
  peek: queryParam("peek", z.enum(["true", "false"]).optional(), {
    description:
      "`true`: only look at the context (an inspector, a debugging read): it is not a model request, so it is not a turn of the bill and waits for no compaction; the committed view is returned as it is",
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
    instructions: fields.SummarizerText.optional(),
    focus: fields.SummarizerText.optional(),
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
    summarizer: z.string().nullable().openapi({
      description:
        "What wrote this compaction's summary: `llm` (tiers 2 and 3), `extractive` (the deterministic tier 4, also when the configured LLM summarizer failed: `summarizerFailure` says why) or `openai-responses-compact` (strategy `openai`); null when it wrote none (a tool strip keeps the summary an earlier compaction wrote)",
    }),
    summarizerFailure: z.object({ kind: z.string(), message: z.string() }).nullable().openapi({
      description:
        "Why the configured LLM summarizer failed, when it did: the tier degraded past it, and `summarizer` names the one that wrote the summary instead",
    }),
    summaryUsage: z
      .object({
        inputTokens: z.number().int(),
        cacheReadTokens: z.number().int(),
        cacheWriteTokens: z.number().int(),
        outputTokens: z.number().int(),
      })
      .nullable()
      .openapi({
        description:
          "What the summary's requests cost as the provider counted them, when they went through the cache (setting `cachedSummaries`): every prompt token, those read from and written to the cache, and the summary's output tokens; null otherwise",
      }),
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
    tailTokens: z.number().int().nullable().openapi({
      description:
        "Tokens of the newest messages a compaction keeps verbatim (the kept size); default: 5% of the window, at least 2,000 (policy cost), with the last two turns' tool outputs kept whole within half the aim, or within the tail where the limit is the floor (windows up to 40k); set, it is all that stays verbatim",
    }),
    policy: fields.CompactionPolicy.nullable(),
    floor: z.number().nullable().openapi({
      description:
        "Policy cost: the fraction of the window under which the context is left alone (default 0.5)",
    }),
    identifierPolicy: fields.IdentifierPolicy.nullable(),
    identifierInstructions: z.string().nullable(),
    pinned: z.array(ChatMessage),
    summarizerModel: z.string().nullable(),
    strategy: z.enum(["local", "openai"]),
    recall: z.boolean().openapi({
      description: "The summary says earlier details can be recalled with the `recall` tool",
    }),
    cachedSummaries: z.boolean().openapi({
      description:
        "A gateway session's summaries are written by its own upstream model, as its last request extended by the summary instruction, read from the prompt cache (default false)",
    }),
    cacheDiagnostics: z.boolean().openapi({
      description:
        "A gateway session's Anthropic requests opt in to Anthropic's cache diagnostics, so each turn records why the prompt cache missed (default false)",
    }),
    memory: z.boolean().openapi({
      description:
        "The user's memories are flushed before compaction and inserted in `/context` (default false)",
    }),
    memoryTokens: z
      .number()
      .int()
      .openapi({ description: "Token budget of the memory block in `/context` (default 2000)" }),
    webhookUrl: z.string().nullable().openapi({
      description:
        "Where the session's compaction events are POSTed, signed with `webhookSecret` (see `/events`)",
    }),
  })
  .openapi("SessionSettings", { description: "null: the default applies" });

export const SettingsPatch = z
  .strictObject({
    model: fields.ModelName.nullable().optional(),
    contextWindow: fields.contextWindowValue.nullable().optional(),
    threshold: fields.ThresholdValue.nullable().optional(),
    reserveTokens: z.number().int().nonnegative().nullable().optional(),
    tailTokens: z.number().int().nonnegative().nullable().optional(),
    policy: fields.CompactionPolicy.nullable().optional(),
    floor: fields.FloorValue.nullable().optional(),
    identifierPolicy: fields.IdentifierPolicy.nullable().optional(),
    identifierInstructions: fields.SummarizerText.nullable().optional(),
    pinned: z.array(InputMessage).max(50).nullable().optional().openapi({
      description:
        "Chat Completions messages (system, developer, user or assistant without tool calls) re-injected after the leading system messages of every context",
    }),
    summarizerModel: fields.ModelName.nullable().optional(),
    strategy: z.enum(["local", "openai"]).nullable().optional(),
    recall: z.boolean().nullable().optional().openapi({
      description:
        "The summary says, in one line, that earlier details can be recalled with the `recall` tool",
    }),
    cachedSummaries: z.boolean().nullable().optional().openapi({
      description:
        "Summaries through the cache: after a gateway turn's answer, a compaction that is due is summarized by the session's own upstream model, the turn's request sent again byte for byte with the summary instruction appended (read from the provider's prompt cache, with the request's own key, never stored); elsewhere (API sessions, a compaction no gateway turn precedes) the deployment's summarizer writes it. The deployment's summarizer stays the fallback tier",
    }),
    cacheDiagnostics: z.boolean().nullable().optional().openapi({
      description:
        "Anthropic's cache diagnostics: the gateway's Anthropic requests carry `diagnostics.previous_message_id` (null on the first, then the id of the last answer to a request that carried it), and each turn records the `cache_miss_reason` Anthropic answers (shown in the inspector beside the cost chart). Off by default, because when on Anthropic keeps a fingerprint of each request (hashes and token counts, no content) for a limited time, under your organization. A request that sends its own `diagnostics` keeps them; other providers: no effect",
    }),
    memory: z.boolean().nullable().optional().openapi({
      description:
        "Flush before compaction: what matters in the compacted range is written to the user's memory",
    }),
    memoryTokens: z.number().int().min(0).max(32_000).nullable().optional(),
    webhookUrl: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
      .max(2_000)
      .nullable()
      .optional()
      .openapi({
        description:
          "POST each compaction event here (`compaction.started`, `.committed`, `.unchanged`, `.failed`), signed: needs `webhookSecret`, in this PATCH or an earlier one. Retried with backoff until a 2xx, at least once; dedupe by `X-Condense-Event-Id`",
      }),
    webhookSecret: z.string().min(16).max(256).nullable().optional().openapi({
      description:
        'The key of the webhook\'s signature, `X-Condense-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`; write-only, never shown',
    }),
  })
  .openapi("SettingsPatch");

const cacheTokens = {
  cacheReadTokens: z.number().int(),
  cacheWriteTokens: z.number().int(),
};

const BillBasis = z.enum(["usage", "estimated", "mixed"]).openapi({
  description:
    "What the figure rests on: `usage` when the provider reported it (measured), `estimated` when the cache model priced it from the context's size and the prefix it kept, `mixed` for a sum of both",
});

export const SessionBill = z
  .object({
    model: z.string().openapi({ description: "The model whose catalog prices the bill is in" }),
    turns: z.number().int().openapi({
      description:
        "Model requests the session served (`GET /context`, gateway turns; the same request served again counts once), and each answer appended through `/messages` with no context fetched for it (estimated from the context the session held then)",
    }),
    dollars: z.number().nullable().openapi({
      description:
        "What the turns' input cost under the provider's prompt cache, in dollars of the catalog's prices: as the provider counted it for the turns whose usage was reported, estimated from their sizes and the prefix each kept for the others (`basis`); null when the catalog has no price for the model",
    }),
    wholeHistoryDollars: z.number().nullable().openapi({
      description:
        "What sending the whole history every turn would have cost under the same cache, in dollars",
    }),
    ratio: z.number().nullable().openapi({
      description:
        "`dollars ÷ wholeHistoryDollars` (computed in tokens, so also without a price): under 1, compaction saved money once caching is counted; null before any turn. The whole history's side is always estimated",
    }),
    basis: BillBasis,
    measuredTurns: z.number().int().openapi({
      description:
        "Turns whose usage the provider reported (gateway answers, appends with `usage`): priced as it counted them",
    }),
    coldTurns: z.number().int().openapi({
      description:
        "Turns served after the provider's cache lifetime had passed since the turn before (5 minutes on Anthropic, 10 on OpenAI's automatic caching): billed as a full write on both sides, not as busts",
    }),
    costTokens: z.number().openapi({
      description:
        "The served requests' bill in uncached input tokens' worth (read × cache-read price + written × cache-write price + uncached)",
    }),
    wholeHistoryCostTokens: z.number(),
    cacheBusts: z.number().int().openapi({
      description:
        "Turns whose start was rewritten (a compaction), so the cache could not serve the previous request",
    }),
    ...cacheTokens,
    reported: z
      .object({
        turns: z.number().int(),
        inputTokens: z.number().int(),
        ...cacheTokens,
        dollars: z.number().nullable(),
      })
      .openapi({
        description:
          "What the provider reported for the turns whose usage reached the session (gateway answers, appends with `usage`), priced as it counted them",
      }),
    summaries: z
      .object({
        count: z.number().int(),
        inputTokens: z.number().int(),
        ...cacheTokens,
        outputTokens: z.number().int(),
        costTokens: z.number(),
        dollars: z.number().nullable(),
      })
      .openapi({
        description:
          "The summaries written through the cache (setting `cachedSummaries`) as the provider counted them, beside the turns (not in `dollars` or `costTokens`): the prompt read at the cache-read price, the rest of the input at the input price, the output at the output price, in the same unit as `costTokens` and in dollars",
      }),
  })
  .openapi("SessionBill", {
    description:
      "The session's input bill under prompt caching, beside sending the whole history with caching (issue 19)",
  });

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
    ...fields.contextLimits,
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
      thrashing: z
        .object({
          since: z.string().openapi({ description: "ISO time the run of quick refills began" }),
          refills: z.number().int().openapi({
            description: "Compactions in a row that came within 3 model turns of the one before",
          }),
          turnsApart: z.array(z.number().int()).openapi({
            description:
              "Model turns between each compaction of the run and the one before, newest first",
          }),
        })
        .nullable()
        .openapi({
          description:
            "Set while the context refills within 3 model turns of each compaction, 3 times in a row (thrashing): compactions then move the largest tool outputs (the verbatim tail's too) to recall, placeholders naming their call, before and usually instead of a new summary, and their log lines warn `thrashing`. Null otherwise",
        }),
      summarizer: z
        .object({
          breaker: z.enum(["closed", "open", "half-open"]).openapi({
            description:
              "closed: the LLM summarizer is called; open: skipped until `openUntil` (3 failures in a row open it, for twice the cooldown, doubling with each further failure up to 6 hours); half-open: the next compaction tries it once",
          }),
          consecutiveFailures: z.number().int().openapi({
            description:
              "Compactions in a row whose LLM summary failed (they fell back to the next tier)",
          }),
          openUntil: z
            .string()
            .nullable()
            .openapi({ description: "ISO time the breaker opened until" }),
          lastFailure: z
            .object({ at: z.string(), kind: z.string(), message: z.string() })
            .nullable(),
        })
        .openapi({
          description:
            "The LLM summarizer's circuit breaker, beside `cooldownUntil` (which skips it after any one failure)",
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
    webhook: z
      .object({
        pending: z.number().int().openapi({ description: "Events still to deliver" }),
        delivered: z.number().int(),
        failed: z
          .number()
          .int()
          .openapi({ description: "Events given up on after every retry (kept in `/events`)" }),
        lastError: z.string().nullable().openapi({
          description: "Why the latest delivery that failed failed",
        }),
        nextAttemptAt: z.string().nullable(),
      })
      .openapi({ description: "The deliveries of compaction events to `webhookUrl`" }),
    bill: SessionBill,
  })
  .openapi("SessionStatus");

export const DeleteResponse = z
  .object({ sessionId: z.string(), deleted: z.literal(true), messageCount: z.number().int() })
  .openapi("DeleteResponse");

export const CompactionsResponse = z
  .object({
    sessionId: z.string(),
    compactions: z.array(CompactionEvent),
    bill: SessionBill,
    costSeries: z
      .array(
        z.object({
          lastSeq: z.number().int().openapi({ description: "The last message the turn sent" }),
          costTokens: z.number(),
          wholeHistoryCostTokens: z.number(),
          basis: z.enum(["usage", "estimated"]).openapi({
            description:
              "`usage` when this turn's cost is the provider's reported usage (for a rolled-up stretch of old turns: every one's), else `estimated`",
          }),
          cacheMiss: z
            .object({
              reason: z.string().openapi({
                description:
                  "The provider's reason (Anthropic: `model_changed`, `system_changed`, `tools_changed`, `messages_changed`, `previous_message_not_found`, `unavailable`)",
              }),
              missedTokens: z.number().int().nullable().openapi({
                description: "Tokens the cache would have served had the prefix matched",
              }),
            })
            .nullable()
            .openapi({
              description:
                "Why the provider's prompt cache missed on this turn, when its answer said (Anthropic's `diagnostics.cache_miss_reason`, for requests that ask for diagnostics); null otherwise",
            }),
        }),
      )
      .openapi({
        description:
          "Per turn, oldest first (old turns rolled up, one point per stretch between compactions): the bill so far and the whole history's so far, in uncached input tokens' worth (`bill.costTokens` at the end)",
      }),
  })
  .openapi("CompactionsResponse");

export const ToolOutputParams = SessionIdParam.extend({
  toolCallId: z
    .string()
    .min(1)
    .max(512)
    .openapi({ param: { name: "toolCallId", in: "path" } }),
});

export const ToolOutputQuery = z.object({
  seq: queryParam("seq", z.coerce.number().int().positive().optional(), {
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
  after: queryParam("after", z.coerce.number().int().nonnegative().optional(), {
    description: "Return messages with seq > after",
  }),
  limit: queryParam("limit", z.coerce.number().int().min(1).max(1000).optional(), {
    description: "Default 100",
  }),
  generation: queryParam("generation", z.coerce.number().int().positive().optional(), {
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

// ---------------------------------------------------------------- side requests (issue 33)

export const SideRequestParams = SessionIdParam.extend({
  sideRequestId: z.coerce
    .number()
    .int()
    .positive()
    .openapi({ param: { name: "sideRequestId", in: "path" }, example: 1 }),
});

export const SideRequestsQuery = z.object({
  after: queryParam("after", z.coerce.number().int().nonnegative().optional(), {
    description: "Return side requests with id > after",
  }),
  limit: queryParam("limit", z.coerce.number().int().min(1).max(200).optional(), {
    description: "Default 50",
  }),
});

const SideRequestFields = {
  id: z.number().int().openapi({ description: "What `X-Condense-Side-Request` named" }),
  at: z.string().openapi({ description: "When the request came (ISO 8601)" }),
  reason: z.enum(["other-conversation", "tool-call-rules", "busy"]).openapi({
    description:
      "Why the session did not take it (`X-Condense-Stateless`): another conversation than the one the session follows (a title, a topic check, a sub-agent), a history that breaks the tool-call rules even as a generation of its own, or one that came while the session was busy",
  }),
  generation: z
    .number()
    .int()
    .openapi({ description: "The session's generation when it came, which it left as it was" }),
  model: z.string().nullable(),
  messageCount: z.number().int().openapi({ description: "Messages in the request's history" }),
  answered: z.boolean().openapi({ description: "Whether the model's whole answer is kept" }),
};

export const SideRequestSummary = z.object(SideRequestFields).openapi("SideRequestSummary");

export const SideRequestsResponse = z
  .object({
    sessionId: z.string(),
    sideRequests: z.array(SideRequestSummary),
    nextAfter: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Pass as `after` for the next page; null at the end" }),
  })
  .openapi("SideRequestsResponse");

export const SideRequestResponse = z
  .object({
    sessionId: z.string(),
    ...SideRequestFields,
    messages: z
      .array(ChatMessage)
      .openapi({ description: "The request's history, canonical (OpenAI Chat Completions)" }),
    answer: z.array(ChatMessage).nullable().openapi({
      description:
        "The model's answer, canonical, once it was complete; null before, or when the upstream gave none (an error)",
    }),
  })
  .openapi("SideRequestResponse");

// ---------------------------------------------------------------- compaction events (issue 33)

export const SessionEvent = z
  .object({
    id: z.number().int().openapi({ description: "Increasing per session; `X-Condense-Event-Id`" }),
    type: z.enum([
      "compaction.started",
      "compaction.committed",
      "compaction.unchanged",
      "compaction.failed",
    ]),
    at: z.string(),
    sessionId: z.string(),
    run: z.string().openapi({ description: "The compaction run the event belongs to" }),
    data: z.record(z.string(), z.unknown()).openapi({
      description:
        "started: trigger, tokens, contextWindow, budget, strategy. committed: trigger, compactionId, tier, tokensBefore, tokensAfter, summarizer (what wrote the summary: llm, extractive, openai-responses-compact, or null when none was written), summarizerFailure (the LLM summarizer's failure the tier degraded past), fallback, durationMs, bill. unchanged: trigger, reason. failed: trigger, error, failedAttempts, fallback (the deterministic tier runs next)",
    }),
  })
  .openapi("SessionEvent");

export const EventsQuery = z.object({
  after: queryParam("after", z.coerce.number().int().nonnegative().optional(), {
    description: "Return events with id > after",
  }),
  limit: queryParam("limit", z.coerce.number().int().min(1).max(1000).optional(), {
    description: "Default 100",
  }),
});

export const EventsResponse = z
  .object({
    sessionId: z.string(),
    events: z.array(SessionEvent),
    nextAfter: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Pass as `after` for the next page; null at the end" }),
  })
  .openapi("EventsResponse");
