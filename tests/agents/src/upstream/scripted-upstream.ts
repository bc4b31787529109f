/**
 * @module upstream/scripted-upstream
 * The provider the agents talk to in these tests: `@condense/test-servers`'
 * server on loopback, serving each registered run — its `Scenario` (the name,
 * the `limit`), protocol, scripted model and key — under the base URL
 * `register` returns (`scenarioBaseUrl`: the scenario's name is the first path
 * segment, as an agent CLI sets its provider's base URL and nothing else), in the run's protocol (`upstream/anthropic-messages`,
 * `upstream/openai-responses`, `upstream/chat-completions`). Each model
 * request is authenticated (the run's key, as the provider reads it), checked
 * against the protocol's documented rules, counted (`upstream/prompt-tokens`)
 * and refused with the provider's overflow error above the run's limit, then
 * answered by the run's scripted model — streamed when the request streams.
 * Every request is recorded, refused or not, for the run's figures.
 */

import {
  type ControlHandler,
  type Handler,
  type JsonObject,
  type ProtocolName,
  type ReceivedRequest,
  type Reply,
  type Scenario,
  scenarioBaseUrl,
  scenarioFromPath,
  startTestServer,
  type Violation,
} from "@condense/test-servers";
import type { ModelAnswer } from "../model/model-turn.ts";
import type { ScriptedModel } from "../model/scripted-model.ts";
import { promptTokens } from "./prompt-tokens.ts";
import type { AgentProtocol } from "./wire.ts";

export interface UpstreamRun {
  /** Names the run and sets its `limit`: prompt tokens above which a request is refused as an overflow. */
  scenario: Scenario;
  protocol: AgentProtocol;
  model: ScriptedModel;
  /** The API key the run's requests must carry. */
  key: string;
}

export interface RecordedCall {
  /** Milliseconds since the server started. */
  at: number;
  method: string;
  /** The path after the run's base path, with the query. */
  path: string;
  headers: Record<string, string>;
  body: JsonObject | null;
  /** The prompt's tokens (model requests). */
  tokens: number | null;
  status: number;
  /** A request that declares no tools (a title, a quota check), not a turn of the task. */
  side: boolean;
  /** Why the request was refused. */
  refused?: Violation;
}

export interface ScriptedUpstream {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Registers `run`; returns its base URL. */
  register(run: UpstreamRun): string;
  calls(run: string): RecordedCall[];
  close(): Promise<void>;
}

/** The model's answer as the server's reply, with the ids each provider gives its calls. */
function reply(answer: ModelAnswer, protocol: ProtocolName, inputTokens: number): Reply {
  const call = answer.call;
  const prefix = protocol === "anthropic" ? "toolu" : "call";
  return {
    type: "completion",
    thinking: answer.thinking ?? null,
    content: answer.text ?? null,
    toolCalls:
      call === undefined
        ? []
        : [
            {
              id: `${prefix}_${call.id}`,
              name: call.name,
              arguments: call.kind === "function" ? JSON.stringify(call.input) : call.input,
              ...(call.kind === "custom" ? { custom: true } : {}),
            },
          ],
    usage: { prompt_tokens: inputTokens, completion_tokens: 24 },
  };
}

export async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  const runs = new Map<string, UpstreamRun>();
  const recorded = new Map<string, RecordedCall[]>();
  const started = Date.now();

  /** The request's run, and the call recorded for it (none for a run never registered). */
  const begin = (request: ReceivedRequest) => {
    const url = new URL(request.path, "http://127.0.0.1");
    const { name, rest } = scenarioFromPath(url.pathname);
    const run = runs.get(name);
    if (run === undefined) return { name, url };
    const call: RecordedCall = {
      at: Date.now() - started,
      method: request.method,
      path: `${rest}${url.search}`,
      headers: request.headers,
      body: request.body ?? null,
      tokens: null,
      status: 200,
      side: false,
    };
    recorded.get(name)?.push(call);
    const refuse = (violation: Violation) => {
      call.status = violation.status;
      call.refused = violation;
      return violation;
    };
    return { name, url, run, call, refuse };
  };

  const noRun = (name: string): Violation => ({
    status: 404,
    message: `no run named ${name}`,
    errorType: "not_found",
  });

  const handler: Handler = (request) => {
    const { name, run, call, refuse } = begin(request);
    if (run === undefined) return { type: "error", ...noRun(name) };
    const { protocol } = run;
    const { body } = request;
    if (request.method !== "POST" || request.protocol !== protocol.name) {
      return {
        type: "error",
        ...refuse({
          status: 404,
          errorType: "not_found_error",
          message: `no route ${request.method} ${call.path}`,
        }),
      };
    }
    if (!protocol.authenticated(request.headers, run.key)) {
      return { type: "error", ...refuse(protocol.unauthorized()) };
    }
    if (body === undefined) {
      return {
        type: "error",
        ...refuse({ status: 400, message: "The request body is not valid JSON." }),
      };
    }
    const tokens = promptTokens(protocol.prompt(body));
    call.tokens = tokens;
    const modelRequest = protocol.read(body);
    call.side = run.model.isSide(modelRequest);
    const violation = protocol.violation(body, request.headers);
    if (violation !== undefined) return { type: "error", ...refuse(violation) };
    const limit = run.scenario.limit ?? Number.POSITIVE_INFINITY;
    if (tokens > limit) return { type: "error", ...refuse(protocol.overflow(tokens, limit)) };
    return reply(run.model.answer(modelRequest), protocol.name, tokens);
  };

  const control: ControlHandler = (request) => {
    const { name, url, run, call, refuse } = begin(request);
    if (run === undefined) {
      return {
        status: 404,
        body: { error: { message: `no run named ${name}`, type: "not_found" } },
      };
    }
    if (request.method === "GET" && url.pathname.endsWith("/models")) {
      return {
        body: {
          object: "list",
          data: [{ id: "e2e-model", object: "model", created: 0, owned_by: "e2e" }],
        },
      };
    }
    const violation = refuse({
      status: 404,
      errorType: "not_found_error",
      message: `no route ${request.method} ${call.path}`,
    });
    return { status: 404, body: run.protocol.errorBody(violation) };
  };

  const server = await startTestServer(handler, { control });
  return {
    origin: server.origin,
    register(run) {
      runs.set(run.scenario.name, run);
      recorded.set(run.scenario.name, []);
      return scenarioBaseUrl(server.origin, run.scenario);
    },
    calls: (name) => recorded.get(name) ?? [],
    close: () => server.close(),
  };
}
