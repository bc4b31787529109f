/**
 * Workers AI as the deployed summarizer: with the `AI` binding (a fake here, as for the embeddings)
 * and `SUMMARIZER=workers-ai`, a compaction's LLM summary and its memory flush run on the binding's
 * model (`SUMMARIZER_MODEL`) with no external key or request; a failing binding degrades to the next
 * tier; without either, the deterministic summarizer stays the default.
 */

import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { type MemoryOperation, SUMMARY_SECTIONS } from "@condense/core";
import { describe, expect, it } from "vitest";
import type { MemorySink } from "../../src/session/compaction/memory-flush";
import { runCompaction } from "../../src/session/compaction/run";
import { MessageStore } from "../../src/session/store/message-store";
import { sessionScope } from "../../src/session/store/session-scope";
import { append, createSmallSession, freshSession, llm, prose, stubFor } from "../support/helpers";

/** A Workers AI fake for text generation: a template summary, or the flush's memory tool call. */
class FakeChatAi {
  readonly calls: Array<{ model: string; input: Record<string, unknown> }> = [];
  failing = false;
  async run(model: string, input: Record<string, unknown>): Promise<unknown> {
    this.calls.push({ model, input });
    if (this.failing) throw new Error("3040: Capacity temporarily exceeded");
    if (Array.isArray(input.tools)) {
      return {
        response: null,
        tool_calls: [
          {
            name: "memory",
            arguments: { op: "add", text: "Prefers pnpm over npm", kind: "preference" },
          },
        ],
        usage: { prompt_tokens: 900, completion_tokens: 30, total_tokens: 930 },
      };
    }
    return {
      response: SUMMARY_SECTIONS.map((section) => `## ${section}\nWritten on Workers AI.`).join(
        "\n\n",
      ),
      usage: { prompt_tokens: 4000, completion_tokens: 200, total_tokens: 4200 },
    };
  }
}

/** A sink recording what the flush applied. */
function recordingSink() {
  const applied: MemoryOperation[][] = [];
  const sink: MemorySink = {
    memories: async () => [],
    apply: async (ops) => {
      applied.push(ops);
      return {};
    },
  };
  return { sink, applied };
}

async function proseSession(): Promise<string> {
  const id = freshSession("workers-ai");
  await createSmallSession(id, { memory: true });
  await append(id, {
    messages: [{ role: "user", content: "Always use pnpm." }, ...prose(30).slice(1)],
  });
  return id;
}

function compactWith(id: string, testEnv: Env, sink: MemorySink) {
  return runInDurableObject(stubFor("alice", id), (_instance, state) =>
    runCompaction(
      sessionScope(() => state.storage, new MessageStore(state.storage.sql), testEnv.DEFAULT_MODEL),
      testEnv,
      "manual",
      { force: true },
      () => sink,
    ),
  );
}

describe("SUMMARIZER=workers-ai", () => {
  it("summarizes and flushes memory on the AI binding's model, with no external request", async () => {
    const ai = new FakeChatAi();
    const model = `@cf/test/summarizer-${crypto.randomUUID()}`;
    const workersAi = { ...env, SUMMARIZER: "workers-ai", SUMMARIZER_MODEL: model, AI: ai } as Env;
    const id = await proseSession();
    const { sink, applied } = recordingSink();
    const result = await compactWith(id, workersAi, sink);
    expect(result.status).toBe("committed");
    expect(result.event).toMatchObject({ summarizer: "llm", summarizerFailure: null });
    expect(result.event?.tier).toBeGreaterThanOrEqual(2);
    // Both calls went to the binding, with the configured model: a summary, and the flush's tool.
    expect(ai.calls.some((call) => !Array.isArray(call.input.tools))).toBe(true);
    const flush = ai.calls.find((call) => Array.isArray(call.input.tools));
    expect(flush?.input.tools).toEqual([
      expect.objectContaining({ name: "memory", parameters: expect.any(Object) }),
    ]);
    expect(ai.calls.every((call) => call.model === model)).toBe(true);
    expect(applied.flat()).toEqual([
      expect.objectContaining({ op: "add", text: "Prefers pnpm over npm" }),
    ]);
    // The OpenAI-compatible server the tests also configure was never asked.
    expect(await llm.count(model)).toBe(0);
  });

  it("degrades to the deterministic tier when the binding fails, and the flush to the deterministic pass", async () => {
    const ai = new FakeChatAi();
    ai.failing = true;
    const workersAi = { ...env, SUMMARIZER: "workers-ai", AI: ai } as Env;
    const id = await proseSession();
    const { sink, applied } = recordingSink();
    const result = await compactWith(id, workersAi, sink);
    expect(result.status).toBe("committed");
    // The extractive tier (4) wrote the summary; the event says why the LLM's could not.
    expect(result.event?.tier).toBe(4);
    expect(result.event?.summarizerFailure).toMatchObject({ kind: "server_error" });
    expect(result.event?.summarizer).toBe("extractive");
    expect(ai.calls.length).toBeGreaterThan(0);
    expect(applied.flat()).toEqual([expect.objectContaining({ text: "Always use pnpm." })]);
  });

  it("keeps the deterministic summarizer where neither Workers AI nor an endpoint is configured", async () => {
    const ai = new FakeChatAi();
    const plain = { ...env, SUMMARIZER_BASE_URL: "", SUMMARIZER_API_KEY: "", AI: ai } as Env;
    const id = await proseSession();
    const result = await compactWith(id, plain, recordingSink().sink);
    expect(result.event).toMatchObject({ summarizer: "extractive", summarizerFailure: null });
    expect(ai.calls).toEqual([]);
  });
});
