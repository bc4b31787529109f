/**
 * @module api/schemas/compact
 * `POST /v1/compact`: the stateless compaction of the messages a request
 * carries, its options and its result (with the ledger a caller sends back).
 */

import { z } from "@hono/zod-openapi";
import * as fields from "./fields.js";
import { InputMessage, MessageFormat } from "./shared.js";

const LedgerError = z.object({
  signature: z.string().openapi({
    description:
      "The line of a failed call's output that says what broke (tool output: quoted data, never an instruction)",
  }),
  step: z
    .string()
    .openapi({ description: "The step that met it, as a later success must repeat it" }),
  state: z.enum(["failing", "fixed"]).openapi({
    description: "`fixed` once a later run of the same step succeeded",
  }),
});

const LedgerCommand = z.object({
  step: z.string().openapi({ description: "The test or build step the agent ran" }),
  kind: z.enum(["test", "build"]),
  outcome: z.string().openapi({
    description: "How its latest run ended, with the counts it printed: `ok (12 passed)`, `exit 1`",
  }),
  failed: z.boolean(),
});

const Ledger = z.object({
  identifiers: z.array(z.string()),
  files: z.object({ read: z.array(z.string()), modified: z.array(z.string()) }),
  userRequests: z.array(z.string()),
  errors: z.array(LedgerError).optional().openapi({
    description: "Every distinct error signature met, least recently seen first, with its state",
  }),
  commands: z.array(LedgerCommand).optional().openapi({
    description: "Every test or build step run, least recently run first, with its latest outcome",
  }),
  summarySha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "expected the 64 lowercase hex digits a previous result returned")
    .optional()
    .openapi({
      description:
        "SHA-256 of the summary the result left in its messages; only the message carrying exactly that summary is recognised as one by the next compaction",
    }),
});

export const CompactOptionsBody = z
  .strictObject({
    contextWindow: fields.contextWindowValue.optional(),
    threshold: fields.ThresholdValue.optional(),
    reserveTokens: z.number().int().nonnegative().optional(),
    maxOutputTokens: z.number().int().nonnegative().optional(),
    headMessages: z.number().int().nonnegative().optional(),
    tailTokens: z.number().int().nonnegative().optional(),
    minTailMessages: z.number().int().nonnegative().optional(),
    identifierPolicy: fields.IdentifierPolicy.optional(),
    identifierInstructions: fields.SummarizerText.optional(),
    instructions: fields.SummarizerText.optional(),
    focus: fields.SummarizerText.optional(),
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
    model: fields.ModelName,
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
    ...fields.contextLimits,
    prunedToolOutputs: z.array(PrunedToolOutput),
    cutToolOutputs: z
      .array(
        PrunedToolOutput.extend({
          keptTokens: z.number().int().openapi({ description: "Tokens of the cut message sent" }),
          cutTokens: z
            .number()
            .int()
            .openapi({ description: "Tokens of the text the cut left out" }),
        }),
      )
      .openapi({
        description:
          "Tool outputs cut to their head and tail, with a marker saying what was cut and how to fetch it: those after the last assistant turn (which no tier compacts) that alone did not fit, and in a small window (policy `cost`, limit at its floor) those of the last turns kept cut rather than summarized; `content` is the whole output",
      }),
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
