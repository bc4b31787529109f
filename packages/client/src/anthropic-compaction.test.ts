import { APIError } from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { anthropicClient } from "../test/anthropic-model.js";
import { registerScenario, serverLog } from "../test/model.js";
import { client, freshId } from "../test/worker.js";
import type { RecoveryEvent } from "./conversation.js";
import type { SessionHandle } from "./session.js";
import { withCompaction } from "./with-compaction.js";

const SESSION_MODEL = "claude-sonnet-4-5";
const SYSTEM = "You are a coding agent working in the repository acme/widgets.";
/** Extended thinking on: the provider answers with a signed thinking block first. */
const THINKING = { type: "enabled" as const, budget_tokens: 512 };
const tools = [
  {
    name: "read_file",
    description: "Read a file",
    input_schema: {
      type: "object" as const,
      properties: { path: { type: "string" } },
      required: ["path"],
    },
  },
];

/** A user turn of about 3 000 characters (prompts under 200 tokens do not calibrate). */
function userText(turn: number): string {
  return `Turn ${turn}: ticket TICKET-${1000 + turn} reports that widget ${turn} renders twice. ${"Please look at the render loop and the cache invalidation, then report what you find. ".repeat(5)}\n${toolOutput(`turn_${turn}`)}`;
}

function toolOutput(id: string): string {
  return Array.from(
    { length: 30 },
    (_, i) => `${i + 1}: export function render_${i}(widget) { return draw(widget); } // ${id}`,
  ).join("\n");
}

async function newSession(contextWindow: number): Promise<SessionHandle> {
  const session = client().session(freshId("an"));
  await session.update({ contextWindow, model: SESSION_MODEL });
  return session;
}

async function transcriptOf(session: SessionHandle) {
  const entries = [];
  for await (const entry of session.transcriptEntries({ limit: 1000 })) entries.push(entry);
  return entries;
}

/** The next turn: the tool results the answer asks for, or the next user message. */
function nextTurn(
  content: ReadonlyArray<{ type: string; id?: string }>,
  turn: number,
): MessageParam {
  const calls = content.filter((block) => block.type === "tool_use");
  if (calls.length === 0) return { role: "user", content: userText(turn) };
  return {
    role: "user",
    content: calls.map((call) => ({
      type: "tool_result" as const,
      tool_use_id: String(call.id),
      content: toolOutput(String(call.id)),
    })),
  };
}

describe("withCompaction(new Anthropic()): what reaches the session and the model", () => {
  it("sends the session's system and turns, stores answers with thinking and tool_use, and appends system once", async () => {
    const name = `an-basic-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 1_000_000, toolEvery: 2 });
    const session = await newSession(64_000);
    const claude = withCompaction(anthropicClient(), { session, model: SESSION_MODEL });

    const first = await claude.messages.create({
      model: name,
      max_tokens: 1024,
      thinking: THINKING,
      system: SYSTEM,
      messages: [{ role: "user", content: userText(1) }],
      tools,
    });
    expect(first.content.map((block) => block.type)).toEqual(["thinking", "text"]);
    // Answer 2 is a tool_use; its thinking block must come back with it (the server checks).
    const second = await claude.messages.create({
      model: name,
      max_tokens: 1024,
      thinking: THINKING,
      system: SYSTEM,
      messages: [{ role: "user", content: userText(2) }],
      tools,
      stream: true,
    });
    const events: string[] = [];
    for await (const event of second) events.push(event.type);
    expect(events[0]).toBe("message_start");
    expect(events.at(-1)).toBe("message_stop");
    const stream = claude.messages.stream({
      model: name,
      max_tokens: 1024,
      thinking: THINKING,
      system: SYSTEM,
      messages: [
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_2", content: toolOutput("toolu_2") },
          ],
        },
      ],
      tools,
    });
    const third = await stream.finalMessage();
    expect(third.content.at(-1)?.type).toBe("text");

    const log = await serverLog(name);
    expect(log.map((entry) => entry.status)).toEqual([200, 200, 200]);
    expect(log.every((entry) => entry.system === SYSTEM)).toBe(true);
    // user / user, answer, user / … , tool_use turn, tool_result turn.
    expect(log.map((entry) => entry.items)).toEqual([1, 3, 5]);
    // The tool_use turn came back with its thinking block first (the server checked its signature).
    expect(log[2]?.blocks[3]).toEqual(["thinking", "tool_use"]);

    const entries = await transcriptOf(session);
    expect(entries.map((entry) => entry.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(entries[4]?.message.tool_calls).toMatchObject([
      { id: "toolu_2", function: { name: "read_file", arguments: '{"path":"src/module_2.ts"}' } },
    ]);
    expect(entries[4]?.message.provider_data).toMatchObject({
      anthropic: { thinking: [{ type: "thinking", signature: expect.stringMatching(/.+/) }] },
    });
    const status = await session.status();
    expect(status.calibration.samples).toBe(3);
  });

  it("passes documents and search results through the session unchanged", async () => {
    const name = `an-docs-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 1_000_000, toolEvery: 1 });
    const session = await newSession(64_000);
    const claude = withCompaction(anthropicClient(), { session, model: SESSION_MODEL });
    const question: MessageParam = {
      role: "user",
      content: [
        {
          type: "document",
          source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQK" },
          title: "spec.pdf",
          citations: { enabled: true },
        },
        { type: "text", text: "Which widget renders twice?" },
      ],
    };
    const first = await claude.messages.create({
      model: name,
      max_tokens: 1024,
      messages: [question],
      tools,
    });
    const use = first.content.find((block) => block.type === "tool_use");
    if (use?.type !== "tool_use") throw new Error("expected a tool_use answer");
    const results: MessageParam = {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: use.id,
          content: [
            {
              type: "search_result",
              source: "https://docs.example.com/widgets",
              title: "Widgets",
              content: [{ type: "text", text: "Widget 7 renders twice when the cache is cold." }],
              citations: { enabled: true },
            },
          ],
        },
      ],
    };
    await claude.messages.create({ model: name, max_tokens: 1024, messages: [results], tools });

    const log = await serverLog(name);
    expect(log.map((entry) => entry.status)).toEqual([200, 200]);
    expect(log[0]?.blocks[0]).toEqual(["document", "text"]);
    expect(log[1]?.blocks).toEqual([["document", "text"], ["tool_use"], ["tool_result"]]);
    const context = await session.context({ format: "anthropic" });
    expect(context.messages[0]).toEqual(question);
    expect(context.messages[2]).toEqual(results);
  });

  it("appends a changed system prompt, and reads the session's system before the first call", async () => {
    const name = `an-system-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 1_000_000 });
    const session = await newSession(64_000);
    const ask = (system: string, text: string) =>
      withCompaction(anthropicClient(), { session, model: SESSION_MODEL }).messages.create({
        model: name,
        max_tokens: 100,
        system,
        messages: [{ role: "user", content: text }],
      });
    // Each call through a fresh wrapper, as after a restart: the system is stored once.
    await ask(SYSTEM, "one");
    await ask(SYSTEM, "two");
    await ask(`${SYSTEM} Be brief.`, "three");
    const systems = (await transcriptOf(session))
      .filter((entry) => entry.role === "system")
      .map((entry) => entry.message.content);
    expect(systems).toEqual([SYSTEM, `${SYSTEM} Be brief.`]);
  });

  it("leaves the rest of the client as it was", () => {
    const anthropic = anthropicClient();
    const claude = withCompaction(anthropic, { session: client().session(freshId()) });
    expect(claude.baseURL).toBe(anthropic.baseURL);
    expect(claude.models).toBe(anthropic.models);
    expect(typeof claude.messages.countTokens).toBe("function");
    expect(claude.messages.create).not.toBe(anthropic.messages.create);
  });
});

describe("withCompaction(new Anthropic()): overflows and errors", () => {
  it("recovers from Anthropic's 'prompt is too long' over a 40-turn tool loop with thinking, streamed and not", async () => {
    const name = `an-long-${crypto.randomUUID()}`;
    // The provider accepts far less than the session's configured window: only its errors tell.
    await registerScenario({
      name,
      limit: 12_000,
      charsPerToken: 1.5,
      toolEvery: 3,
    });
    const session = await newSession(40_000);
    const recoveries: RecoveryEvent[] = [];
    const claude = withCompaction(anthropicClient(), {
      session,
      model: SESSION_MODEL,
      onRecovery: (event) => recoveries.push(event),
    });
    let pending: MessageParam = { role: "user", content: userText(0) };
    for (let turn = 0; turn < 40; turn++) {
      const request = {
        model: name,
        max_tokens: 1024,
        thinking: THINKING,
        system: SYSTEM,
        messages: [pending],
        tools,
      };
      const content =
        turn % 2 === 0
          ? (await claude.messages.create(request)).content
          : (await claude.messages.stream(request).finalMessage()).content;
      pending = nextTurn(content, turn + 1);
    }
    const log = await serverLog(name);
    const refused = log.filter((entry) => entry.overLimit);
    expect(refused.length).toBeGreaterThan(0);
    expect(recoveries).toHaveLength(refused.length);
    expect(log.filter((entry) => entry.status === 200)).toHaveLength(40);
    // Every refusal was an overflow (no thinking-block complaint), and every retry fit.
    expect(log.filter((entry) => entry.status === 400 && !entry.overLimit)).toEqual([]);
    log.forEach((entry, index) => {
      if (entry.overLimit) expect(log[index + 1]?.overLimit).toBe(false);
    });
    expect(log.every((entry) => entry.system === SYSTEM)).toBe(true);
    const entries = await transcriptOf(session);
    expect(entries.filter((entry) => entry.role === "assistant")).toHaveLength(40);
  });

  it("throws an error that is not an overflow exactly as the SDK raised it, and compacts nothing", async () => {
    const session = await newSession(64_000);
    const claude = withCompaction(anthropicClient(), { session, model: SESSION_MODEL });
    const error = await claude.messages
      .create({
        model: `unregistered-${crypto.randomUUID()}`,
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(404);
    expect(await session.compactions()).toEqual([]);
  });
});

describe("withCompaction(new Anthropic()): concurrent calls on one session", () => {
  it("takes turns: each question is followed by its own answer, nothing lost or stored twice", async () => {
    const name = `an-concurrent-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 1_000_000 });
    const session = await newSession(64_000);
    const claude = withCompaction(anthropicClient(), { session, model: SESSION_MODEL });
    const questions = Array.from({ length: 6 }, (_, i) => `question ${i}`);
    const answers = await Promise.all(
      questions.map(async (question, i) => {
        const request = {
          model: name,
          max_tokens: 100,
          messages: [{ role: "user" as const, content: question }],
        };
        if (i % 3 === 0) return (await claude.messages.create(request)).content;
        if (i % 3 === 1) return (await claude.messages.stream(request).finalMessage()).content;
        const stream = await claude.messages.create({ ...request, stream: true });
        let text = "";
        for await (const event of stream)
          if (event.type === "content_block_delta" && event.delta.type === "text_delta")
            text += event.delta.text;
        return [{ type: "text" as const, text }];
      }),
    );
    const entries = await transcriptOf(session);
    expect(entries).toHaveLength(12);
    // Calls take turns in the order they were made.
    expect(entries.filter((_, i) => i % 2 === 0).map((entry) => entry.message.content)).toEqual(
      questions,
    );
    for (const [i, answer] of answers.entries()) {
      const stored = entries[2 * i + 1]?.message;
      expect(stored?.role).toBe("assistant");
      const blocks = answer as ReadonlyArray<{ type: string; text?: string }>;
      const text = blocks.map((block) => block.text ?? "").join("");
      expect(JSON.stringify(stored?.content)).toContain(text.slice(0, 40));
    }
    // The n-th request saw the 2n-1 messages before it.
    expect((await serverLog(name)).map((entry) => entry.items)).toEqual([1, 3, 5, 7, 9, 11]);
  });
});
