/**
 * @module test/support/llm-server
 * The "slow LLM" the Worker tests control, started from Node in vitest's
 * globalSetup (workerd cannot listen). Chat Completions are served by
 * `@condense/test-servers`' `startTestServer`; the test's `Scenario` scripts the answer,
 * carried by the session's (summarizer) model name (`scenarioModel`):
 * - `hold`: waits until the test releases the scenario's name (`POST /release?tag=`), then answers;
 * - `fail`: answers with that HTTP error;
 * - `memory`: a request that offers tools (the memory flush) gets `memory` tool calls
 *   (one valid add, a replace of an unknown id, an add holding a secret); others a template summary;
 * - none of them: a valid template summary at once.
 * The same server takes the control calls (its `origin`, `controlUrl`) and fakes OpenAI's
 * `POST /v1/responses/compact` (`fail` fails it too; `malformed` answers items
 * the engine cannot read: a function call without its call id, name and arguments).
 * `GET /requests?model=` counts what each model name received; `GET /prompts?model=` returns the
 * text of each of those Chat Completions requests, in order.
 */

import { SUMMARY_SECTIONS } from "@condense/core";
import {
  type ControlHandler,
  type ControlReply,
  type Handler,
  type ReceivedRequest,
  requestText,
  scenarioFromModel,
  startTestServer,
  templateHandler,
} from "@condense/test-servers";

export interface LlmServers {
  /** Base URL of the Chat Completions server, ending in `/v1`. */
  chatUrl: string;
  /** Origin of the same server, for the control calls (and `/v1/responses/compact`). */
  controlUrl: string;
  close(): Promise<void>;
}

const summaries = templateHandler(SUMMARY_SECTIONS);

export async function startLlmServers(): Promise<LlmServers> {
  const counts = new Map<string, number>();
  const released = new Set<string>();
  const waiters = new Map<string, Array<() => void>>();

  const count = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1);

  const handler: Handler = async (request, index, connection) => {
    const model = request.body?.model ?? "";
    count(model);
    const scenario = scenarioFromModel(model);
    if (scenario.hold === true && !released.has(scenario.name)) {
      const tag = scenario.name;
      await new Promise<void>((resolve) => {
        waiters.set(tag, [...(waiters.get(tag) ?? []), resolve]);
      });
    }
    if (scenario.fail !== undefined) {
      const status = typeof scenario.fail === "number" ? scenario.fail : scenario.fail.status;
      return { type: "error", status, message: `scripted failure ${status}` };
    }
    if (scenario.memory === true && Array.isArray(request.body?.tools)) {
      const memoryCall = (id: string, args: unknown) => ({
        id,
        name: "memory",
        arguments: JSON.stringify(args),
      });
      return {
        type: "completion",
        content: "Recorded what matters.",
        toolCalls: [
          memoryCall("call_m1", { op: "add", text: "Prefers pnpm over npm", kind: "preference" }),
          memoryCall("call_m2", { op: "replace", id: "mem_unknown", text: "whatever" }),
          memoryCall("call_m3", {
            op: "add",
            text: "Deploy key is ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
            kind: "fact",
          }),
        ],
      };
    }
    return summaries(request, index, connection);
  };

  let compactions = 0;

  /** A fake of OpenAI's `POST /v1/responses/compact`, which the core server does not speak. */
  const compact = (request: ReceivedRequest): ControlReply => {
    const body = request.body;
    if (body === undefined) return { status: 400, body: { error: { message: "invalid JSON" } } };
    const model = body.model ?? "";
    count(`responses:${model}`);
    const scenario = scenarioFromModel(model);
    if (scenario.fail !== undefined) {
      const status = typeof scenario.fail === "number" ? scenario.fail : scenario.fail.status;
      return {
        status,
        body: { error: { message: `scripted failure ${status}`, type: "server_error" } },
      };
    }
    if (scenario.malformed === true) {
      return { body: { output: [{ type: "function_call", id: "x_1" }] } };
    }
    if (request.headers.authorization !== "Bearer sk-test-openai") {
      return {
        status: 401,
        body: { error: { message: "bad key", type: "invalid_request_error" } },
      };
    }
    compactions++;
    const input = Array.isArray(body.input) ? body.input : [];
    const users = input.filter(
      (item) =>
        typeof item === "object" && item !== null && (item as { role?: unknown }).role === "user",
    );
    return {
      body: {
        id: `resp_compact_${compactions}`,
        object: "response.compaction",
        output: [
          ...users.slice(-1),
          {
            type: "compaction",
            id: `cmp_${compactions}`,
            encrypted_content: `gAAAA-encrypted-${compactions}`,
          },
        ],
        usage: { input_tokens: input.length * 10, output_tokens: 5 },
      },
    };
  };

  const control: ControlHandler = (request) => {
    const url = new URL(request.path, "http://localhost");
    const model = url.searchParams.get("model") ?? "";
    switch (url.pathname) {
      case "/requests":
        return { body: { count: counts.get(model) ?? 0 } };
      case "/prompts":
        return {
          body: server.requests
            .filter((recorded) => recorded.body?.model === model)
            .map(requestText),
        };
      case "/release": {
        const tag = url.searchParams.get("tag") ?? "";
        released.add(tag);
        for (const resolve of waiters.get(tag) ?? []) resolve();
        waiters.delete(tag);
        return { body: { released: tag } };
      }
      case "/v1/responses/compact":
        return request.method === "POST" ? compact(request) : undefined;
      default:
        return undefined;
    }
  };

  const server = await startTestServer(handler, { control });
  return {
    chatUrl: server.url,
    controlUrl: server.origin,
    async close() {
      for (const list of waiters.values()) for (const resolve of list) resolve();
      await server.close();
    },
  };
}
