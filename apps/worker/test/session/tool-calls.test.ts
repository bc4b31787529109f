/**
 * Tool-call integrity at append, and tool outputs by call: results that answer
 * no call or an answered one are refused (nothing stored is ever overwritten),
 * ids reused once their call is answered (`call_0` every turn) are new calls,
 * and `/tool-outputs/{id}` serves the latest output of an id or, with `?seq=`,
 * an earlier one, through compactions that prune them.
 */

import { validateMessages } from "@condense/core";
import { describe, expect, it } from "vitest";
import type {
  CompactionsResponseBody,
  ContextResponseBody,
  ManualCompactResponseBody,
  ToolOutputResponseBody,
} from "../../src/api/schemas";
import {
  append,
  call,
  conversation,
  freshSession,
  type Message,
  runAlarmWhenDue,
  status,
  stubFor,
  textOf,
  toolStep,
  transcript,
} from "../support/helpers";

/** One turn of a server that numbers its calls afresh every turn: the call is always `call_0`. */
function reusedTurn(turn: number, outputChars = 2_000): Message[] {
  const tool = turn % 2 === 0 ? "read_file" : "grep";
  return [
    {
      role: "assistant",
      content: `Turn ${turn}: looking at src/turn_${turn}.ts`,
      tool_calls: [
        {
          id: "call_0",
          type: "function",
          function: { name: tool, arguments: JSON.stringify({ path: `src/turn_${turn}.ts` }) },
        },
      ],
    },
    {
      role: "tool",
      tool_call_id: "call_0",
      content: `// output of turn ${turn}\n${"const x = 1; // filler\n".repeat(Math.ceil(outputChars / 23))}`,
    },
  ];
}

const output = (id: string, path: string) =>
  call<ToolOutputResponseBody>("GET", `/v1/sessions/${id}/tool-outputs/${path}`);

describe("tool results at append", () => {
  it("refuses a result that answers no call of the session (400 invalid_messages), storing nothing", async () => {
    const id = freshSession();
    await append(id, { messages: conversation(1) });
    const orphan = await append(id, {
      messages: [
        { role: "user", content: "here is something" },
        { role: "tool", tool_call_id: "call_ghost", content: "from nowhere" },
      ],
    });
    expect(orphan.status).toBe(400);
    expect(orphan.body).toMatchObject({
      error: {
        code: "invalid_messages",
        details: { problems: [{ index: 1, path: "tool_call_id", kind: "orphan_result" }] },
      },
    });
    expect(JSON.stringify(orphan.body)).toContain("append the assistant message that makes it");
    expect((await status(id)).messageCount).toBe(4);
    expect((await output(id, "call_ghost")).status).toBe(404);
    // The context stays valid for OpenAI.
    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(validateMessages(context.body.messages as never, "openai").problems).toEqual([]);
  });

  it("refuses a second result for an answered call; the first output stays retrievable", async () => {
    const id = freshSession();
    await append(id, { messages: conversation(1) });
    const first = await output(id, "call_1");
    expect(first.status).toBe(200);
    const again = await append(id, {
      messages: [{ role: "tool", tool_call_id: "call_1", content: "a second, different output" }],
    });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      error: {
        code: "invalid_messages",
        details: { problems: [{ index: 0, kind: "duplicate_result" }] },
      },
    });
    expect(JSON.stringify(again.body)).toContain("already has its result at seq 4");
    // Within one append, too.
    const [callMessage, result] = toolStep(2);
    const twice = await append(id, {
      messages: [callMessage, result, { ...result, content: "and again" }],
    });
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({
      error: { details: { problems: [{ index: 2, kind: "duplicate_result" }] } },
    });
    expect((await status(id)).messageCount).toBe(4);
    const still = await output(id, "call_1");
    expect(still.body).toEqual(first.body);
    expect(still.body.content).toBe(toolStep(1)[1]?.content);
  });

  it("refuses an id reused while its call still awaits its result, and says how to fix it", async () => {
    const id = freshSession();
    await append(id, { messages: [{ role: "user", content: "go" }, ...reusedTurn(0)] });
    const [open] = reusedTurn(1);
    expect((await append(id, { messages: [open] })).status).toBe(200);
    const reused = await append(id, { messages: [reusedTurn(2)[0]] });
    expect(reused.status).toBe(400);
    expect(reused.body).toMatchObject({
      error: {
        code: "invalid_messages",
        details: {
          problems: [{ index: 0, path: "tool_calls[0].id", kind: "duplicate_tool_call_id" }],
        },
      },
    });
    const message = JSON.stringify(reused.body);
    expect(message).toContain("the call at seq 4 still awaits its result");
    expect(message).toContain("give this call a unique id");
    expect((await status(id)).messageCount).toBe(4);
  });
});

describe("reused tool-call ids", () => {
  it("accepts an id again once its call is answered; /tool-outputs serves the latest, ?seq= an earlier one", async () => {
    const id = freshSession();
    const messages: Message[] = [{ role: "user", content: "Go through the turns." }];
    for (let turn = 0; turn < 3; turn++) messages.push(...reusedTurn(turn, 300));
    // Across appends as well as within one.
    expect((await append(id, { messages })).status).toBe(200);
    expect((await append(id, { messages: reusedTurn(3, 300) })).status).toBe(200);

    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(validateMessages(context.body.messages as never, "openai").problems).toEqual([]);

    const latest = await output(id, "call_0");
    expect(latest.body).toMatchObject({
      toolCallId: "call_0",
      toolName: "grep",
      seq: 9,
      occurrence: 4,
      previousSeq: 7,
      nextSeq: null,
      pruned: false,
    });
    expect(latest.body.content).toBe(reusedTurn(3, 300)[1]?.content);
    const earlier = await output(id, "call_0?seq=3");
    expect(earlier.body).toMatchObject({
      toolName: "read_file",
      seq: 3,
      occurrence: 1,
      previousSeq: null,
      nextSeq: 5,
    });
    expect(earlier.body.content).toBe(reusedTurn(0, 300)[1]?.content);
    // A seq that holds no output of that id is a 404 that says what to do.
    const wrong = await output(id, "call_0?seq=2");
    expect(wrong.status).toBe(404);
    expect(JSON.stringify(wrong.body)).toContain("leave out `seq`");
    expect((await output(id, "call_0?seq=0")).status).toBe(400);
  });

  it("compacts such a session: each placeholder names its output's seq, and exactly those outputs are pruned", async () => {
    const id = freshSession();
    await append(id, { messages: conversation(0), model: "gpt-4o" });
    await call("PATCH", `/v1/sessions/${id}`, { body: { contextWindow: 16_000 } });
    const messages: Message[] = [];
    for (let turn = 0; turn < 14; turn++) messages.push(...reusedTurn(turn));
    const crossing = await append(id, { messages });
    expect(crossing.status).toBe(200);
    expect(crossing.body.compaction.status).toBe("scheduled");
    expect(await runAlarmWhenDue(stubFor("alice", id))).toBe(true);
    const history = (await call<CompactionsResponseBody>("GET", `/v1/sessions/${id}/compactions`))
      .body.compactions;
    expect(history).toHaveLength(1);

    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(validateMessages(context.body.messages as never, "openai").problems).toEqual([]);
    const outputsInContext = new Set(
      context.body.messages
        .filter((message) => (message as { role?: string }).role === "tool")
        .map(textOf),
    );
    // Turn t's output is at seq 2 + 2t + 2.
    let pruned = 0;
    for (let turn = 0; turn < 14; turn++) {
      const seq = 4 + 2 * turn;
      const stored = await output(id, `call_0?seq=${seq}`);
      expect(stored.status).toBe(200);
      expect(stored.body.content).toBe(reusedTurn(turn)[1]?.content);
      expect(stored.body.occurrence).toBe(turn + 1);
      const inContext = outputsInContext.has(stored.body.content as string);
      expect(stored.body.pruned, `turn ${turn}`).toBe(!inContext);
      if (stored.body.pruned) pruned++;
    }
    expect(pruned).toBe(history[0]?.prunedToolOutputs);
    expect(pruned).toBeGreaterThan(0);
    // Placeholders say which output they stand for.
    const placeholders = context.body.messages
      .map(textOf)
      .filter((text) => text.startsWith("[Condense pruned this"));
    for (const placeholder of placeholders) {
      const seq = Number(/tool call id call_0 \(seq (\d+)\)/.exec(placeholder)?.[1]);
      const stored = await output(id, `call_0?seq=${seq}`);
      expect(stored.body.pruned).toBe(true);
    }

    // A second round folds the first view in: outputs still whole in it are found by seq again.
    const more: Message[] = [];
    for (let turn = 14; turn < 28; turn++) more.push(...reusedTurn(turn));
    await append(id, { messages: more });
    await call("POST", `/v1/sessions/${id}/compact`, { body: {} });
    const again = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(validateMessages(again.body.messages as never, "openai").problems).toEqual([]);
    const whole = new Set(
      again.body.messages
        .filter((message) => (message as { role?: string }).role === "tool")
        .map(textOf),
    );
    const events = (await call<CompactionsResponseBody>("GET", `/v1/sessions/${id}/compactions`))
      .body.compactions;
    let prunedNow = 0;
    for (let turn = 0; turn < 28; turn++) {
      const stored = await output(id, `call_0?seq=${4 + 2 * turn}`);
      expect(stored.body.content).toBe(reusedTurn(turn)[1]?.content);
      expect(stored.body.pruned, `turn ${turn}`).toBe(!whole.has(stored.body.content as string));
      if (stored.body.pruned) prunedNow++;
    }
    expect(prunedNow).toBe(events.reduce((sum, event) => sum + event.prunedToolOutputs, 0));
  });

  it("keeps an open call whose id an earlier call used out of a compaction, so its result pairs with it", async () => {
    const id = freshSession();
    await append(id, { messages: conversation(0), model: "gpt-4o" });
    await call("PATCH", `/v1/sessions/${id}`, { body: { contextWindow: 16_000 } });
    const messages: Message[] = [];
    for (let turn = 0; turn < 10; turn++) messages.push(...reusedTurn(turn));
    const [open, result] = reusedTurn(10);
    await append(id, { messages: [...messages, open] });
    const manual = await call<ManualCompactResponseBody>("POST", `/v1/sessions/${id}/compact`, {
      body: {},
    });
    expect(manual.body.compacted).toBe(true);
    expect(manual.body.event?.range.toSeq).toBe(22);
    expect((await append(id, { messages: [result] })).status).toBe(200);
    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(validateMessages(context.body.messages as never, "openai").problems).toEqual([]);
    expect(textOf(context.body.messages.at(-1))).toContain("// output of turn 10");
    expect((await output(id, "call_0")).body).toMatchObject({ seq: 24, occurrence: 11 });
    expect((await transcript(id)).length).toBe(24);
  });
});

describe("interrupted tool calls", () => {
  const listFiles: Message = {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: "{}" } }],
  };
  const interrupted = "[no result: this tool call was interrupted before it returned]";

  const contextIn = async (id: string, format: string) =>
    (await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context?format=${format}`)).body;

  it("answers a call a user message interrupted with a placeholder in every format, and places its late result with it", async () => {
    const id = freshSession();
    await append(id, { messages: [{ role: "user", content: "list files" }, listFiles] });
    expect((await append(id, { messages: [{ role: "user", content: "never mind" }] })).status).toBe(
      200,
    );
    const openai = await contextIn(id, "openai");
    expect(openai.messages).toEqual([
      { role: "user", content: "list files" },
      listFiles,
      { role: "tool", content: interrupted, tool_call_id: "call_1" },
      { role: "user", content: "never mind" },
    ]);
    expect(validateMessages(openai.messages as never, "openai").problems).toEqual([]);
    expect(validateMessages(openai.messages as never, "anthropic").problems).toEqual([]);
    const anthropic = await contextIn(id, "anthropic");
    expect(anthropic.messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "call_1", content: interrupted },
        { type: "text", text: "never mind" },
      ],
    });
    const responses = await contextIn(id, "responses");
    expect(responses.messages.map((item) => (item as { type?: string }).type)).toEqual([
      undefined,
      "function_call",
      "function_call_output",
      undefined,
    ]);

    // The real result comes after all: stored as it came, served with its call.
    expect(
      (await append(id, { messages: [{ role: "tool", tool_call_id: "call_1", content: "a.ts" }] }))
        .status,
    ).toBe(200);
    const late = await contextIn(id, "openai");
    expect(late.messages).toEqual([
      { role: "user", content: "list files" },
      listFiles,
      { role: "tool", content: "a.ts", tool_call_id: "call_1" },
      { role: "user", content: "never mind" },
    ]);
    expect((await transcript(id)).map((row) => row.role)).toEqual([
      "user",
      "assistant",
      "user",
      "tool",
    ]);
    expect((await output(id, "call_1")).body).toMatchObject({ seq: 4, content: "a.ts" });
    const found = await call<{ results: Array<{ seq: number }> }>(
      "GET",
      `/v1/sessions/${id}/search?q=a.ts`,
    );
    expect(found.body.results.map((result) => result.seq)).toContain(4);
  });

  it("keeps a compacted session valid when the late result of a call the compaction answered comes", async () => {
    const listLong: Message = {
      ...listFiles,
      tool_calls: [{ id: "call_ls", type: "function", function: { name: "ls", arguments: "{}" } }],
    };
    const id = freshSession();
    await append(id, { messages: conversation(6), model: "gpt-4o" });
    await append(id, {
      messages: [
        { role: "user", content: "list files" },
        listLong,
        { role: "user", content: "stop" },
      ],
    });
    await append(id, { messages: toolStep(7) });
    const manual = await call<ManualCompactResponseBody>("POST", `/v1/sessions/${id}/compact`, {
      body: {},
    });
    expect(manual.body.compacted).toBe(true);
    const late = await append(id, {
      messages: [{ role: "tool", tool_call_id: "call_ls", content: "a.ts" }],
    });
    expect(late.body).toMatchObject({ appended: 1 });
    for (const format of ["openai", "anthropic", "responses"]) {
      const context = await contextIn(id, format);
      const canonical = format === "openai" ? context.messages : undefined;
      if (canonical !== undefined) {
        expect(validateMessages(canonical as never, "openai").problems).toEqual([]);
        expect(validateMessages(canonical as never, "anthropic").problems).toEqual([]);
        // Its late result is served once, with its call, or not at all when the summary holds the call.
        const results = canonical.filter(
          (message) => (message as { tool_call_id?: string }).tool_call_id === "call_ls",
        );
        expect(results.length).toBeLessThanOrEqual(1);
      }
    }
    expect((await output(id, "call_ls")).body).toMatchObject({ content: "a.ts" });
  });
});
