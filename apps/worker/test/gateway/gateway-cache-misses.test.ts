/**
 * Anthropic's cache diagnostics through the gateway (issue 32, build 3): when the upstream's answer
 * says why its prompt cache missed (`diagnostics.cache_miss_reason`), the turn it answered records
 * the reason and the tokens it missed, and the bill's points carry them (the inspector shows them
 * beside the cost chart). A turn without diagnostics records none.
 */

import { describe, expect, it } from "vitest";
import type { CompactionsResponseBody } from "../../src/api/schemas";
import { anthropicClient, freshTag } from "../support/gateway-helpers";
import { call, freshSession, waitFor } from "../support/helpers";

const report = async (id: string) =>
  (await call<CompactionsResponseBody>("GET", `/v1/sessions/${id}/compactions`)).body;

describe("cache misses the provider explains (Anthropic diagnostics)", () => {
  for (const stream of [false, true]) {
    const how = stream ? "streamed" : "whole";
    it(`records the answer's cache_miss_reason on the turn it answered (${how})`, async () => {
      const session = freshSession("gw-misses");
      const request = {
        model: "claude-sonnet-4-5",
        max_tokens: 256,
        system: "Be brief.",
        messages: [{ role: "user" as const, content: "What does the build do?" }],
      };
      const missed = anthropicClient(freshTag(), {
        session,
        scenario: { cacheMiss: { reason: "system_changed", tokens: 1200 } },
      });
      if (stream) await missed.messages.stream(request).finalMessage();
      else await missed.messages.create(request);
      await waitFor(async () => (await report(session)).bill.measuredTurns === 1, "the usage");
      const plain = anthropicClient(freshTag(), { session });
      const next = {
        ...request,
        messages: [
          ...request.messages,
          { role: "assistant" as const, content: "Answer 1" },
          { role: "user" as const, content: "And then?" },
        ],
      };
      if (stream) await plain.messages.stream(next).finalMessage();
      else await plain.messages.create(next);
      await waitFor(async () => (await report(session)).bill.measuredTurns === 2, "the usage");
      const { costSeries } = await report(session);
      expect(costSeries.map((point) => point.cacheMiss)).toEqual([
        { reason: "system_changed", missedTokens: 1200 },
        null,
      ]);
    });
  }
});
