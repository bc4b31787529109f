/**
 * @module test/llm-server
 * The "slow LLM" the Worker tests control, started from Node in vitest's
 * globalSetup (workerd cannot listen). Chat Completions are served by the
 * core package's `startOpenAIServer`; the requested model name scripts the
 * answer:
 * - `hold:<tag>`: waits until the test releases `<tag>` (`POST /release?tag=`), then answers;
 * - `fail:<status>`: answers with that HTTP error;
 * - anything else: a valid template summary at once.
 * A second small server takes the control calls and fakes OpenAI's
 * `POST /v1/responses/compact` (model `fail:<status>` fails it too; `malformed…` answers items
 * that are not Responses items).
 * `GET /requests?model=` counts what each model name received; `GET /prompts?model=` returns the
 * text of each of those Chat Completions requests, in order.
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type OpenAIServerHandler,
  requestText,
  startOpenAIServer,
  templateHandler,
} from "../../../packages/core/src/test-support/openai-server";

export interface LlmServers {
  /** Base URL of the Chat Completions server, ending in `/v1`. */
  chatUrl: string;
  /** Base URL of the control server (also serves `/v1/responses/compact`). */
  controlUrl: string;
  close(): Promise<void>;
}

export async function startLlmServers(): Promise<LlmServers> {
  const counts = new Map<string, number>();
  const released = new Set<string>();
  const waiters = new Map<string, Array<() => void>>();

  const count = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1);

  const handler: OpenAIServerHandler = async (request, index) => {
    const model = request.body?.model ?? "";
    count(model);
    const hold = /^hold:(.+)$/.exec(model);
    if (hold?.[1] !== undefined && !released.has(hold[1])) {
      const tag = hold[1];
      await new Promise<void>((resolve) => {
        waiters.set(tag, [...(waiters.get(tag) ?? []), resolve]);
      });
    }
    const fail = /^fail:(\d{3})/.exec(model);
    if (fail?.[1] !== undefined) {
      return { type: "error", status: Number(fail[1]), message: `scripted failure ${fail[1]}` };
    }
    return templateHandler(request, index);
  };

  const chat = await startOpenAIServer(handler);
  let compactions = 0;

  const control = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const url = new URL(incoming.url ?? "/", "http://localhost");
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      };
      if (url.pathname === "/requests") {
        send(200, { count: counts.get(url.searchParams.get("model") ?? "") ?? 0 });
        return;
      }
      if (url.pathname === "/prompts") {
        const model = url.searchParams.get("model") ?? "";
        send(
          200,
          chat.requests.filter((request) => request.body?.model === model).map(requestText),
        );
        return;
      }
      if (url.pathname === "/release") {
        const tag = url.searchParams.get("tag") ?? "";
        released.add(tag);
        for (const resolve of waiters.get(tag) ?? []) resolve();
        waiters.delete(tag);
        send(200, { released: tag });
        return;
      }
      if (url.pathname === "/v1/responses/compact" && incoming.method === "POST") {
        let body: { model?: string; input?: unknown[] } = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as typeof body;
        } catch {
          send(400, { error: { message: "invalid JSON" } });
          return;
        }
        const model = body.model ?? "";
        count(`responses:${model}`);
        const fail = /^fail:(\d{3})/.exec(model);
        if (fail?.[1] !== undefined) {
          send(Number(fail[1]), {
            error: { message: `scripted failure ${fail[1]}`, type: "server_error" },
          });
          return;
        }
        if (model.startsWith("malformed")) {
          send(200, { output: [{ type: "not_an_item_type", id: "x_1" }] });
          return;
        }
        if (incoming.headers.authorization !== "Bearer sk-test-openai") {
          send(401, { error: { message: "bad key", type: "invalid_request_error" } });
          return;
        }
        compactions++;
        const input = Array.isArray(body.input) ? body.input : [];
        const users = input.filter(
          (item) =>
            typeof item === "object" &&
            item !== null &&
            (item as { role?: unknown }).role === "user",
        );
        send(200, {
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
        });
        return;
      }
      send(404, { error: { message: `no route ${url.pathname}` } });
    });
  });
  await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));
  const { port } = control.address() as AddressInfo;

  return {
    chatUrl: chat.url,
    controlUrl: `http://127.0.0.1:${port}`,
    async close() {
      for (const list of waiters.values()) for (const resolve of list) resolve();
      control.closeAllConnections();
      await new Promise<void>((resolve) => control.close(() => resolve()));
      await chat.close();
    },
  };
}
