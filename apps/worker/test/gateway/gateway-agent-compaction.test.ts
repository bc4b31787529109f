/**
 * An agent that compacts on its own, through the gateway with the real SDKs:
 * its summary replaces its history (Claude Code's and Codex's `/compact`), or
 * the provider compacted it (an Anthropic `compaction` block, an OpenAI
 * `compaction` item). The session follows: every request answered (no 400,
 * none left stateless), what came before kept in the transcript and found by
 * recall, the next turns served from the agent's new history, and no
 * compaction of the gateway's stacked on the agent's.
 */

import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { SearchResponseBody, TranscriptResponseBody } from "../../src/api/schemas";
import {
  anthropicClient,
  freshTag,
  openaiClient,
  queueAnswers,
  upstreamCalls,
} from "../support/gateway-helpers";
import { call, compactions, freshSession, status, waitFor } from "../support/helpers";

type AnthropicParam = Anthropic.Messages.MessageParam;
type InputItem = OpenAI.Responses.ResponseInputItem;

const MODEL = "claude-opus-4-6";
const SYSTEM = "You are a careful coding agent.";
const WINDOW = { "X-Condense-Context-Window": "16000" };
const TOOLS: Anthropic.Messages.Tool[] = [
  { name: "read_file", description: "Reads a file", input_schema: { type: "object" } },
];

/** A tool result as long as an agent's file read. */
const fileText = (step: number) =>
  `// src/${step}.ts\n${`export const value${step} = compute(${step});\n`.repeat(60)}`;

/** `steps` file reads from `first` on, each a call and its long result. */
function reads(first: number, steps: number): AnthropicParam[] {
  const messages: AnthropicParam[] = [];
  for (let step = first; step < first + steps; step++) {
    messages.push(
      {
        role: "assistant",
        content: [
          { type: "text", text: `Reading file ${step}.` },
          {
            type: "tool_use",
            id: `toolu_${step}`,
            name: "read_file",
            input: { path: `src/${step}.ts` },
          },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: `toolu_${step}`, content: fileText(step) }],
      },
    );
  }
  return messages;
}

/** Claude Code's own compaction prompt (its `/compact`), and how its next history opens. */
const COMPACT_PROMPT =
  "Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions.";
const SUMMARY =
  "<summary>1. Primary request: fix the failing build. 2. Files read: src/0.ts to src/11.ts; value3 is computed twice.</summary>";
const CONTINUED = `This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n${SUMMARY}`;

const generationOf = (response: Response) => response.headers.get("X-Condense-Generation");

async function generationMessages(session: string, generation: number) {
  const reply = await call<TranscriptResponseBody>(
    "GET",
    `/v1/sessions/${session}/transcript?generation=${generation}&limit=1000`,
  );
  return reply.body.messages;
}

describe("an agent's own /compact through the gateway", () => {
  it("Claude Code: the summary that replaces the history starts a generation; nothing is lost or compacted again", async () => {
    const tag = freshTag();
    const session = freshSession("gw-agent-compact");
    const client = anthropicClient(tag, { session, headers: WINDOW });
    const ask = (messages: AnthropicParam[]) =>
      client.messages
        .create({ model: MODEL, max_tokens: 256, system: SYSTEM, tools: TOOLS, messages })
        .withResponse();

    const history: AnthropicParam[] = [
      { role: "user", content: "Fix the failing build and keep notes." },
      ...reads(0, 12),
    ];
    const before = await ask(history);
    expect(before.response.headers.get("X-Condense-Compaction")).toBe("none");
    history.push({ role: "assistant", content: before.data.content });
    await waitFor(
      async () => (await status(session)).messageCount === history.length + 1,
      "answer",
    );

    // `/compact`: the whole history and the compaction prompt; the model answers with the summary.
    await queueAnswers(tag, [{ role: "assistant", content: SUMMARY }]);
    const compact = await ask([...history, { role: "user", content: COMPACT_PROMPT }]);
    expect(compact.response.status).toBe(200);
    expect(compact.response.headers.get("X-Condense-Stateless")).toBeNull();
    const tokensBefore = (await status(session)).contextTokens;

    // The agent goes on from its summary alone.
    const next: AnthropicParam[] = [{ role: "user", content: CONTINUED }];
    const replies = [];
    for (let turn = 0; turn < 3; turn++) {
      const reply = await ask(next);
      replies.push(reply);
      next.push(
        { role: "assistant", content: reply.data.content },
        { role: "user", content: `Go on with step ${turn}.` },
      );
    }
    for (const reply of replies) {
      expect(reply.response.status).toBe(200);
      expect(reply.response.headers.get("X-Condense-Stateless")).toBeNull();
      expect(generationOf(reply.response)).toBe("2");
      expect(reply.response.headers.get("X-Condense-Compaction")).toBe("none");
    }
    // Served from the new history: the upstream got exactly what the agent sent after its summary.
    const calls = (await upstreamCalls(tag)).filter((sent) => sent.path === "/v1/messages");
    expect(calls.at(-1)?.body?.messages).toEqual(next.slice(0, -2));
    expect(JSON.stringify(calls.at(-1)?.body?.messages)).not.toContain("Reading file 3");

    // Nothing lost: the replaced history is the first generation, and recall still finds it.
    const first = await generationMessages(session, 1);
    expect(first.length).toBe(history.length + 3);
    expect(JSON.stringify(first)).toContain("value7 = compute(7)");
    const found = await call<SearchResponseBody>(
      "GET",
      `/v1/sessions/${session}/search?q=${encodeURIComponent("value7")}`,
    );
    expect(found.body.results.length).toBeGreaterThan(0);

    // The session saw its context shrink, and compacted nothing on top of the agent's summary.
    await waitFor(async () => (await status(session)).generation === 2, "generation 2");
    const after = await status(session);
    expect(after.contextTokens).toBeLessThan(tokensBefore / 4);
    expect(after.compaction.status).not.toBe("scheduled");
    expect(await compactions(session)).toHaveLength(0);
  });
});

/** Codex's first items: its permissions as a developer message, its environment as a user message. */
const CODEX_OPENING: InputItem[] = [
  {
    type: "message",
    role: "developer",
    content: "<permissions instructions>Full access.</permissions instructions>",
  },
  {
    type: "message",
    role: "user",
    content: "<environment_context><cwd>/work</cwd></environment_context>",
  },
];

/** Responses items of `steps` function calls from `first` on, each with a long output. */
function calls(first: number, steps: number): InputItem[] {
  const input: InputItem[] = [];
  for (let step = first; step < first + steps; step++) {
    input.push(
      {
        type: "function_call",
        call_id: `call_${step}`,
        name: "read_file",
        arguments: JSON.stringify({ path: `src/${step}.ts` }),
      },
      { type: "function_call_output", call_id: `call_${step}`, output: fileText(step) },
    );
  }
  return input;
}

const RESPONSES_TOOLS: OpenAI.Responses.Tool[] = [
  { type: "function", name: "read_file", parameters: { type: "object" }, strict: false },
];

describe("Codex's own compaction through the gateway", () => {
  it("remote compaction: the history /responses/compact returned is followed, never left as a side request", async () => {
    const tag = freshTag();
    const session = freshSession("gw-codex-compact");
    const client = openaiClient(tag, { session, headers: WINDOW });
    const ask = (input: InputItem[]) =>
      client.responses
        .create({
          model: "gpt-5",
          instructions: "You are Codex.",
          tools: RESPONSES_TOOLS,
          input,
          store: false,
        })
        .withResponse();
    const input: InputItem[] = [
      ...CODEX_OPENING,
      { type: "message", role: "user", content: "Fix the failing build." },
      ...calls(0, 12),
    ];
    const before = await ask(input);
    expect(before.response.headers.get("X-Condense-Compaction")).toBe("none");
    input.push(...(before.data.output as InputItem[]));
    await waitFor(async () => (await status(session)).messageCount > 20, "answer");
    const tokensBefore = (await status(session)).contextTokens;

    // The provider compacts: the user messages, then its opaque compaction item.
    const compacted = await client.responses.compact({ model: "gpt-5", input });
    expect(compacted.output.at(-1)).toMatchObject({ type: "compaction" });
    // Codex goes on from the compacted history, its opening sent again.
    const next: InputItem[] = [
      ...CODEX_OPENING,
      ...(compacted.output as InputItem[]).filter(
        (item) =>
          !(
            "role" in item &&
            CODEX_OPENING.some(
              (open) => "content" in open && "content" in item && open.content === item.content,
            )
          ),
      ),
      { type: "message", role: "user", content: "Go on." },
    ];
    const replies = [];
    for (let turn = 0; turn < 3; turn++) {
      const reply = await ask(next);
      replies.push(reply);
      next.push(...(reply.data.output as InputItem[]), {
        type: "message",
        role: "user",
        content: `Step ${turn}.`,
      });
    }
    for (const reply of replies) {
      expect(reply.response.status).toBe(200);
      expect(reply.response.headers.get("X-Condense-Stateless")).toBeNull();
      expect(generationOf(reply.response)).toBe("2");
      expect(reply.response.headers.get("X-Condense-Compaction")).toBe("none");
    }
    // The provider's compaction item went back to it, in place.
    const sent = (await upstreamCalls(tag)).filter((call) => call.path === "/v1/responses");
    expect(JSON.stringify(sent.at(-1)?.body?.input)).toContain("gAAAA-encrypted-");
    expect(await generationMessages(session, 1)).not.toHaveLength(0);
    const after = await status(session);
    expect(after.contextTokens).toBeLessThan(tokensBefore / 4);
    expect(await compactions(session)).toHaveLength(0);
  });

  it("Codex's local compaction: its summary after its opening starts a generation", async () => {
    const tag = freshTag();
    const session = freshSession("gw-codex-local");
    const client = openaiClient(tag, { session, headers: WINDOW });
    const ask = (input: InputItem[]) =>
      client.responses
        .create({
          model: "gpt-5",
          instructions: "You are Codex.",
          tools: RESPONSES_TOOLS,
          input,
          store: false,
        })
        .withResponse();
    const input: InputItem[] = [
      ...CODEX_OPENING,
      { type: "message", role: "user", content: "Fix the failing build." },
      ...calls(0, 12),
    ];
    const before = await ask(input);
    input.push(...(before.data.output as InputItem[]));
    await queueAnswers(tag, [
      { role: "assistant", content: "Checkpoint: read src/0.ts to src/11.ts." },
    ]);
    const checkpoint = await ask([
      ...input,
      {
        type: "message",
        role: "user",
        content: "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary.",
      },
    ]);
    expect(checkpoint.response.headers.get("X-Condense-Stateless")).toBeNull();
    const next: InputItem[] = [
      ...CODEX_OPENING,
      { type: "message", role: "user", content: "Fix the failing build." },
      {
        type: "message",
        role: "user",
        content:
          "Another language model started to solve this problem and produced a summary of its thinking process.\nCheckpoint: read src/0.ts to src/11.ts.",
      },
    ];
    const reply = await ask(next);
    expect(reply.response.status).toBe(200);
    expect(reply.response.headers.get("X-Condense-Stateless")).toBeNull();
    expect(generationOf(reply.response)).toBe("2");
    expect(reply.response.headers.get("X-Condense-Compaction")).toBe("none");
    expect(await compactions(session)).toHaveLength(0);
  });
});

describe("a compaction the provider made, carried in the history", () => {
  it("Anthropic: messages before a compaction block count no more; the gateway does not compact on top", async () => {
    const tag = freshTag();
    const session = freshSession("gw-anthropic-block");
    const client = anthropicClient(tag, { session, headers: WINDOW });
    const betas = ["compact-2026-01-12"];
    const contextManagement = { edits: [{ type: "compact_20260112" as const }] };
    const ask = (messages: Anthropic.Beta.Messages.BetaMessageParam[]) =>
      client.beta.messages
        .create({
          model: MODEL,
          max_tokens: 256,
          system: SYSTEM,
          messages,
          betas,
          context_management: contextManagement,
        })
        .withResponse();
    const history: Anthropic.Beta.Messages.BetaMessageParam[] = [
      { role: "user", content: "Fix the failing build and keep notes." },
      ...(reads(0, 12) as Anthropic.Beta.Messages.BetaMessageParam[]),
    ];
    const first = await ask(history);
    expect(first.response.headers.get("X-Condense-Compaction")).toBe("none");
    // The provider compacted: its answer opens with a compaction block, which the client sends back.
    history.push(
      {
        role: "assistant",
        content: [
          { type: "compaction", content: SUMMARY },
          { type: "text", text: "Continuing from the summary." },
        ],
      },
      { role: "user", content: "Go on." },
      ...(reads(12, 3) as Anthropic.Beta.Messages.BetaMessageParam[]),
    );
    const replies = [];
    for (let turn = 0; turn < 2; turn++) {
      const reply = await ask(history);
      replies.push(reply);
      history.push(
        {
          role: "assistant",
          content: reply.data.content as Anthropic.Beta.Messages.BetaContentBlockParam[],
        },
        { role: "user", content: `Step ${turn}.` },
      );
    }
    for (const reply of replies) {
      expect(reply.response.status).toBe(200);
      expect(reply.response.headers.get("X-Condense-Stateless")).toBeNull();
      expect(reply.response.headers.get("X-Condense-Compaction")).toBe("none");
    }
    // The provider's compaction block went back to it.
    const sent = (await upstreamCalls(tag)).filter((call) => call.path === "/v1/messages");
    expect(JSON.stringify(sent.at(-1)?.body?.messages)).toContain('"type":"compaction"');
    expect(await compactions(session)).toHaveLength(0);
    // Nothing lost: the messages before the block are in the transcript.
    expect(JSON.stringify(await generationMessages(session, 1))).toContain("value3 = compute(3)");
  });
});

describe("Claude Code resumed in a new process", () => {
  it("is the same conversation though its billing header changed: the session extends, no side request", async () => {
    const tag = freshTag();
    const session = freshSession("gw-resumed");
    const client = anthropicClient(tag, { session, headers: WINDOW });
    // Each `claude` process writes its own build hash into the first block of its system prompt.
    const system = (build: string): Anthropic.Messages.TextBlockParam[] => [
      {
        type: "text",
        text: `x-anthropic-billing-header: cc_version=2.1.332.${build}; cc_entrypoint=sdk-cli;`,
      },
      { type: "text", text: SYSTEM },
    ];
    const ask = (build: string, messages: AnthropicParam[]) =>
      client.messages
        .create({ model: MODEL, max_tokens: 256, system: system(build), tools: TOOLS, messages })
        .withResponse();
    const history: AnthropicParam[] = [
      { role: "user", content: "Fix the failing build and keep notes." },
      ...reads(0, 4),
    ];
    const first = await ask("ab8", history);
    history.push(
      { role: "assistant", content: first.data.content },
      { role: "user", content: COMPACT_PROMPT },
    );
    await waitFor(async () => (await status(session)).messageCount === 11, "answer");
    // `claude -p "/compact" --continue`: another process, the same conversation.
    const compact = await ask("cf6", history);
    expect(compact.response.headers.get("X-Condense-Stateless")).toBeNull();
    expect(generationOf(compact.response)).toBe("1");
    // And the next process goes on from the summary: the session follows it.
    const next = await ask("d01", [{ role: "user", content: CONTINUED }]);
    expect(next.response.headers.get("X-Condense-Stateless")).toBeNull();
    expect(generationOf(next.response)).toBe("2");
  });
});
