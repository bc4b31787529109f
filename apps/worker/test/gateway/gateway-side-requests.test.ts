/**
 * Side requests (issue 33): every response to a request with a session names
 * the session's generation, a request the session does not take says so and
 * is kept retrievable (`/side-requests`) with its answer, and a title request
 * never takes the session, whatever tools it declares.
 */

import { describe, expect, it } from "vitest";
import { freshTag, queueAnswers } from "../support/gateway-helpers";
import { call, freshSession, status, waitFor } from "../support/helpers";
import { type AgentReply, type AgentRoute, sendAgentRequest } from "./agent-requests";
import { openCodeMainFirst } from "./agent-sequences";

interface SideRequestBody {
  id: number;
  reason: string;
  generation: number;
  messages: { role: string; content: unknown }[];
  answer: { role: string; content: unknown }[] | null;
}

const sideRequest = (session: string, id: string) =>
  call<SideRequestBody>("GET", `/v1/sessions/${session}/side-requests/${id}`);

/** A session whose main conversation is settled: opencode's first two turns (it called tools). */
async function settledSession(): Promise<string> {
  const session = freshSession("gw-side");
  const tag = freshTag();
  const [turn1, , turn2] = openCodeMainFirst;
  if (turn1?.answer === undefined || turn2?.answer === undefined) throw new Error("no sequence");
  await queueAnswers(tag, [turn1.answer, turn2.answer]);
  for (const turn of [turn1, turn2]) {
    const reply = await sendAgentRequest("chat", turn.body, { session, tag });
    expect(reply.status).toBe(200);
  }
  return session;
}

/** The body of a short conversation's request in the route's own shape. */
function shortConversation(
  route: AgentRoute,
  history: { role: string; content: string }[],
  stream: boolean,
): Record<string, unknown> {
  const prompt = "You are a helpful assistant. Answer in one line.";
  if (route === "responses") {
    return { model: "gpt-4o", instructions: prompt, input: history, stream };
  }
  if (route === "anthropic") {
    return {
      model: "claude-sonnet-4-5",
      max_tokens: 256,
      system: prompt,
      messages: history,
      stream,
    };
  }
  return {
    model: "gpt-4o",
    messages: [{ role: "system", content: prompt }, ...history],
    stream,
  };
}

/** The text of a canonical message (a string, or its text parts joined). */
function textOf(message: { content: unknown }): string {
  const { content } = message;
  if (!Array.isArray(content)) return String(content);
  return content.map((part: { text?: string }) => part.text ?? "").join("");
}

const header = (reply: AgentReply, name: string) => reply.headers.get(name);

describe("a short conversation on a session that already had another", () => {
  for (const route of ["chat", "responses"] as const) {
    for (const stream of [false, true]) {
      it(`names the session's generation and keeps the conversation retrievable (${route}, ${stream ? "streamed" : "JSON"})`, async () => {
        const session = await settledSession();
        const tag = freshTag();
        await queueAnswers(tag, [
          { role: "assistant", content: "4" },
          { role: "assistant", content: "6" },
        ]);
        const first = [{ role: "user", content: "What is 2+2?" }];
        const second = [
          ...first,
          { role: "assistant", content: "4" },
          { role: "user", content: "And 3+3?" },
        ];
        for (const history of [first, second]) {
          const reply = await sendAgentRequest(route, shortConversation(route, history, stream), {
            session,
            tag,
          });
          expect(reply.status).toBe(200);
          expect(header(reply, "X-Condense-Session")).toBe(session);
          expect(header(reply, "X-Condense-Generation")).toBe("1");
          expect(header(reply, "X-Condense-Stateless")).toBe("other-conversation");
          const id = header(reply, "X-Condense-Side-Request");
          expect(id).toMatch(/^\d+$/);
          // Kept with its answer: the conversation the session answered is never lost.
          const kept = async () => (await sideRequest(session, id ?? "")).body;
          await waitFor(async () => (await kept()).answer !== null, "the side request's answer");
          const body = await kept();
          expect(body.reason).toBe("other-conversation");
          expect(body.generation).toBe(1);
          expect(body.messages.filter((message) => message.role !== "system")).toEqual(history);
          expect(body.answer?.map((message) => [message.role, textOf(message)])).toEqual([
            ["assistant", history === first ? "4" : "6"],
          ]);
        }
        const listed = await call<{ sideRequests: { id: number }[] }>(
          "GET",
          `/v1/sessions/${session}/side-requests`,
        );
        expect(listed.body.sideRequests).toHaveLength(2);
        // The main conversation is untouched.
        expect((await status(session)).generation).toBe(1);
      });
    }
  }
});

describe("a title request that declares tools", () => {
  const titlePrompt = "Generate a short title for the conversation. Reply with the title only.";
  const tools: Record<AgentRoute, unknown[]> = {
    chat: [{ type: "function", function: { name: "noop", parameters: { type: "object" } } }],
    responses: [{ type: "function", name: "noop", parameters: { type: "object" } }],
    anthropic: [{ name: "noop", input_schema: { type: "object" } }],
  };
  const titleBody = (route: AgentRoute): Record<string, unknown> => {
    const history = [{ role: "user", content: "Fix the failing CSV test." }];
    if (route === "responses") {
      return { model: "gpt-4o", instructions: titlePrompt, input: history, tools: tools[route] };
    }
    if (route === "anthropic") {
      const model = "claude-sonnet-4-5";
      return { model, max_tokens: 64, system: titlePrompt, messages: history, tools: tools[route] };
    }
    const messages = [{ role: "system", content: titlePrompt }, ...history];
    return { model: "gpt-4o", messages, tools: tools[route] };
  };

  for (const route of ["chat", "responses", "anthropic"] as const) {
    it(`never takes a session whose conversation has begun (${route})`, async () => {
      const session = freshSession("gw-side");
      const tag = freshTag();
      // The main conversation's first exchange, without tools: the session holds 3 messages (2 on Responses).
      const main = shortConversation(route, [{ role: "user", content: "Hello" }], false);
      const opened = await sendAgentRequest(route, main, { session, tag });
      expect(opened.status).toBe(200);
      const opening = route === "responses" ? 2 : 3; // Responses sends its prompt as `instructions`
      await waitFor(async () => (await status(session)).messageCount === opening, "the answer");

      const title = await sendAgentRequest(route, titleBody(route), { session, tag });
      expect(title.status).toBe(200);
      expect(header(title, "X-Condense-Stateless")).toBe("other-conversation");
      expect(header(title, "X-Condense-Generation")).toBe("1");
      expect(header(title, "X-Condense-Side-Request")).toMatch(/^\d+$/);
      const after = await status(session);
      expect(after.generation).toBe(1);
      expect(after.messageCount).toBe(opening);
    });
  }
});

describe("a request with a session forwarded unchanged", () => {
  it("names the session and its generation, and leaves the session as it was", async () => {
    const session = await settledSession();
    const tag = freshTag();
    const chained = await sendAgentRequest(
      "responses",
      { model: "gpt-4o", previous_response_id: "resp_1", input: "Go on." },
      { session, tag },
    );
    const unreadable = await sendAgentRequest(
      "chat",
      { model: "gpt-4o", messages: [{ role: "user", content: [{ type: "nonsense" }] }] },
      { session, tag },
    );
    expect(header(chained, "X-Condense-Passthrough")).toBe("server-state");
    expect(header(unreadable, "X-Condense-Passthrough")).toBe("unreadable");
    for (const reply of [chained, unreadable]) {
      expect(header(reply, "X-Condense-Session")).toBe(session);
      expect(header(reply, "X-Condense-Generation")).toBe("1");
    }
    expect((await status(session)).generation).toBe(1);
  });
});
