import { RECALL_FENCE_CLOSE, RECALL_FENCE_OPEN } from "@condense/core";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../api/errors";
import { anthropicProtocol } from "../protocols/anthropic-protocol";
import { chatProtocol } from "../protocols/chat-protocol";
import type { GatewayProtocol, RequestBody } from "../protocols/protocol";
import { responsesProtocol } from "../protocols/responses-protocol";
import type { UpstreamReply } from "../upstream/upstream-call";
import {
  answerRecallCall,
  MAX_RECALL_ROUNDS,
  NOT_RUN,
  type RoundsTransport,
  runRecallRounds,
} from "./recall-rounds";
import type { RecallSource } from "./recall-source";

interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** A complete response of each protocol: text, or tool calls. */
const RESPONSES: Record<string, (answer: string | Call[]) => unknown> = {
  chat: (answer) => ({
    choices: [
      {
        index: 0,
        message:
          typeof answer === "string"
            ? { role: "assistant", content: answer }
            : {
                role: "assistant",
                content: null,
                annotations: [],
                tool_calls: answer.map((call) => ({
                  id: call.id,
                  type: "function",
                  function: { name: call.name, arguments: JSON.stringify(call.args) },
                })),
              },
      },
    ],
    usage: { prompt_tokens: 100 },
  }),
  responses: (answer) => ({
    output:
      typeof answer === "string"
        ? [{ type: "message", role: "assistant", content: [{ type: "output_text", text: answer }] }]
        : answer.map((call) => ({
            type: "function_call",
            call_id: call.id,
            name: call.name,
            arguments: JSON.stringify(call.args),
          })),
    usage: { input_tokens: 100 },
  }),
  anthropic: (answer) => ({
    content:
      typeof answer === "string"
        ? [{ type: "text", text: answer }]
        : answer.map((call) => ({
            type: "tool_use",
            id: call.id,
            name: call.name,
            input: call.args,
          })),
    usage: { input_tokens: 100 },
  }),
};

const REQUESTS: Record<string, RequestBody> = {
  chat: { model: "m", messages: [{ role: "user", content: "What did the test print?" }] },
  responses: { model: "m", input: "What did the test print?" },
  anthropic: {
    model: "m",
    max_tokens: 100,
    messages: [{ role: "user", content: "What did the test print?" }],
  },
};

const PROTOCOLS: GatewayProtocol[] = [chatProtocol, responsesProtocol, anthropicProtocol];

function reply(body: unknown, status = 200): UpstreamReply {
  return { status, headers: new Headers(), text: JSON.stringify(body) };
}

const OUTPUT = "FAIL src/users.test.ts: expected 3 rows, got 2";

function fakeSource(): RecallSource & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async search(query) {
      asked.push(`search:${query.q}:${query.limit}`);
      return [
        {
          seq: 4,
          role: "tool",
          toolCallId: "call_test",
          toolName: "run_tests",
          snippet: "expected «3» rows",
          inContext: false,
        },
      ];
    },
    async toolOutput(toolCallId) {
      asked.push(`output:${toolCallId}`);
      if (toolCallId !== "call_test") {
        throw new ApiError(404, "not_found", `no tool output with id ${toolCallId}`);
      }
      return { toolCallId, toolName: "run_tests", content: OUTPUT, seq: 4, pruned: true };
    },
  };
}

/** The tool-result texts a request's history ends with, whatever the protocol. */
function resultTexts(protocol: GatewayProtocol, body: RequestBody): string[] {
  if (protocol.name === "chat") {
    return (body.messages as Array<Record<string, unknown>>)
      .filter((message) => message.role === "tool")
      .map((message) => String(message.content));
  }
  if (protocol.name === "responses") {
    return (body.input as Array<Record<string, unknown>>)
      .filter((item) => item.type === "function_call_output")
      .map((item) => String(item.output));
  }
  return (body.messages as Array<Record<string, unknown>>)
    .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
    .filter((block: Record<string, unknown>) => block.type === "tool_result")
    .map((block: Record<string, unknown>) => String(block.content));
}

describe.each(PROTOCOLS.map((protocol) => [protocol.name, protocol] as const))(
  "recall rounds (%s)",
  (name, protocol) => {
    const respond = RESPONSES[name] as (answer: string | Call[]) => unknown;
    const request = protocol.tools.withRecallTool(REQUESTS[name] as RequestBody);
    const via = (send: (body: RequestBody) => Promise<UpstreamReply>): RoundsTransport => ({
      send,
      read: (reply) => protocol.answer(JSON.parse(reply.text)),
    });

    it("answers the recall calls, sends again with the turn appended, and returns the answer", async () => {
      const source = fakeSource();
      const sent: RequestBody[] = [];
      const result = await runRecallRounds(
        protocol,
        request,
        reply(
          respond([
            { id: "r1", name: "recall", args: { toolCallId: "call_test" } },
            { id: "r2", name: "recall", args: { query: "test rows", limit: 2 } },
          ]),
        ),
        source,
        via(async (body: RequestBody) => {
          sent.push(body);
          return reply(respond("The test expected 3 rows and got 2."));
        }),
      );
      expect(result.rounds).toBe(1);
      expect(JSON.parse(result.reply.text)).toEqual(respond("The test expected 3 rows and got 2."));
      expect(source.asked).toEqual(["output:call_test", "search:test rows:2"]);
      expect(sent).toHaveLength(1);
      const texts = resultTexts(protocol, sent[0] as RequestBody);
      expect(texts).toHaveLength(2);
      expect(texts[0]).toContain(`${RECALL_FENCE_OPEN}\n${OUTPUT}\n${RECALL_FENCE_CLOSE}`);
      expect(texts[1]).toContain("expected «3» rows");
      // The request's own fields stay, the tool stays declared, and no tool choice is forced yet.
      expect(sent[0]?.model).toBe("m");
      expect(protocol.tools.declares(sent[0] as RequestBody, "recall")).toBe(true);
      expect(sent[0]?.tool_choice).toBeUndefined();
    });

    it("returns an answer without recall calls as it came, in no round", async () => {
      const first = reply(respond("Nothing to recall."));
      const result = await runRecallRounds(
        protocol,
        request,
        first,
        fakeSource(),
        via(async () => {
          throw new Error("not sent again");
        }),
      );
      expect(result).toEqual({ reply: first, rounds: 0 });
    });

    it(`stops after ${MAX_RECALL_ROUNDS} rounds, the last asking for an answer without tool calls`, async () => {
      const sent: RequestBody[] = [];
      const call = (n: number) => respond([{ id: `r${n}`, name: "recall", args: { query: "x" } }]);
      const result = await runRecallRounds(
        protocol,
        request,
        reply(call(0)),
        fakeSource(),
        via(async (body: RequestBody) => {
          sent.push(body);
          return reply(sent.length < MAX_RECALL_ROUNDS ? call(sent.length) : respond("Done."));
        }),
      );
      expect(result.rounds).toBe(MAX_RECALL_ROUNDS);
      expect(sent.map((body) => body.tool_choice)).toEqual([
        undefined,
        undefined,
        protocol.name === "anthropic" ? { type: "none" } : "none",
      ]);
      // Every round's turn stays in the history of the next.
      expect(resultTexts(protocol, sent[2] as RequestBody)).toHaveLength(3);
      expect(protocol.tools.declares(sent[2] as RequestBody, "recall")).toBe(true);
    });

    it("refuses an upstream that still calls recall after the last round", async () => {
      const call = respond([{ id: "r", name: "recall", args: { query: "x" } }]);
      await expect(
        runRecallRounds(
          protocol,
          request,
          reply(call),
          fakeSource(),
          via(async () => reply(call)),
        ),
      ).rejects.toMatchObject({ status: 502, code: "recall_rounds_exceeded" });
    });

    it("answers another tool called beside recall as not run, and passes a later error through", async () => {
      const sent: RequestBody[] = [];
      const failure = reply({ error: { message: "overloaded" } }, 529);
      const result = await runRecallRounds(
        protocol,
        request,
        reply(
          respond([
            { id: "r1", name: "recall", args: { query: "rows" } },
            { id: "w1", name: "write_file", args: { path: "a.ts" } },
          ]),
        ),
        fakeSource(),
        via(async (body: RequestBody) => {
          sent.push(body);
          return failure;
        }),
      );
      expect(result).toEqual({ reply: failure, rounds: 1 });
      expect(resultTexts(protocol, sent[0] as RequestBody)[1]).toBe(NOT_RUN);
    });
  },
);

describe("the recall tool in requests", () => {
  it.each(PROTOCOLS.map((protocol) => [protocol.name, protocol] as const))(
    "%s: adds it beside the request's tools and sees a request's own",
    (name, protocol) => {
      const body = REQUESTS[name] as RequestBody;
      expect(protocol.tools.declares(body, "recall")).toBe(false);
      const withTool = protocol.tools.withRecallTool({ ...body, tools: [{ name: "other" }] });
      expect(withTool.tools).toHaveLength(2);
      expect(protocol.tools.declares(withTool, "recall")).toBe(true);
      expect(protocol.tools.declares(withTool, "other")).toBe(true);
    },
  );
});

describe("answerRecallCall", () => {
  it("turns bad arguments, unknown ids and a refused query into text for the model", async () => {
    const source = fakeSource();
    expect(await answerRecallCall(source, "{not json")).toMatch(/^recall was not run: .*JSON/);
    expect(await answerRecallCall(source, { toolCallId: "call_nope" })).toBe(
      "recall failed: no tool output with id call_nope",
    );
    const refused: RecallSource = {
      ...source,
      search: async () => {
        throw new ApiError(400, "invalid_query", "the query has no word to search for");
      },
    };
    expect(await answerRecallCall(refused, '{"query": "%%"}')).toBe(
      "recall failed: the query has no word to search for",
    );
  });

  it("answers a failure it does not know as a retryable error, not an exception", async () => {
    const broken: RecallSource = {
      search: async () => {
        throw new TypeError("boom");
      },
      toolOutput: async () => {
        throw new TypeError("boom");
      },
    };
    expect(await answerRecallCall(broken, { query: "x" })).toMatch(/^recall failed: .*try again/);
  });
});
