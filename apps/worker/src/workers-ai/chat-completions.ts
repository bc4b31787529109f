/**
 * @module workers-ai/chat-completions
 * Workers AI (the `AI` binding) as an OpenAI-compatible Chat Completions
 * endpoint, for the `openai` SDK that core's LLM summarizer and memory flush
 * call: a `fetch` that answers `POST …/chat/completions` by running the model
 * on the binding and writes its answer back as a `chat.completion`. With it
 * the deployment's own platform summarizes, with no external key, through the
 * same summarizer (prompt, chunking, secret redaction, retries, the checks of
 * its answer) as any OpenAI-compatible server. Written by hand because the
 * SDK's transport is what core owns and no library maps the binding to it.
 *
 * Workers AI answers in one of two shapes, both read: its own
 * (`{ response, tool_calls: [{ name, arguments }], usage }`) and, for some
 * newer models, OpenAI's (`{ choices: [...] }`). A binding that throws is a
 * 502, which the summarizer retries and then reports as a server error.
 */

import { isRecord } from "@condense/core";

/** The part of a Workers AI binding this module calls (a real `Ai` binding has it). */
export interface ChatRunner {
  run(model: string, input: Record<string, unknown>): Promise<unknown>;
}

interface ToolCallOut {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** OpenAI's `tools` as Workers AI's function-calling models take them: name, description, parameters. */
function toolsOf(tools: unknown): Array<Record<string, unknown>> | undefined {
  if (!Array.isArray(tools)) return undefined;
  return tools.flatMap((tool) => {
    const fn = isRecord(tool) ? tool.function : undefined;
    if (!isRecord(fn) || typeof fn.name !== "string") return [];
    return [{ name: fn.name, description: fn.description ?? "", parameters: fn.parameters ?? {} }];
  });
}

/** The request's Chat Completions body as the binding's input. */
export function runInput(body: Record<string, unknown>): Record<string, unknown> {
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  const tools = toolsOf(body.tools);
  return {
    messages: body.messages,
    ...(typeof maxTokens === "number" ? { max_tokens: maxTokens } : {}),
    ...(typeof body.temperature === "number" ? { temperature: body.temperature } : {}),
    ...(tools !== undefined && tools.length > 0 ? { tools } : {}),
  };
}

function toolCallsOf(value: unknown): ToolCallOut[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((call, index) => {
    if (!isRecord(call)) return [];
    // Workers AI's own shape is flat; OpenAI's nests the function.
    const fn = isRecord(call.function) ? call.function : call;
    if (typeof fn.name !== "string") return [];
    const args = fn.arguments;
    return [
      {
        id: typeof call.id === "string" ? call.id : `call_${index + 1}`,
        type: "function" as const,
        function: {
          name: fn.name,
          arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
        },
      },
    ];
  });
}

/** The binding's output as a `chat.completion` body. */
export function completionOf(model: string, output: unknown): Record<string, unknown> {
  const out = isRecord(output) ? output : {};
  const choice =
    Array.isArray(out.choices) && isRecord(out.choices[0]) ? out.choices[0] : undefined;
  const message = choice !== undefined && isRecord(choice.message) ? choice.message : undefined;
  const raw = message !== undefined ? message.content : out.response;
  const content = typeof raw === "string" ? raw : raw == null ? "" : JSON.stringify(raw);
  const toolCalls = toolCallsOf(message !== undefined ? message.tool_calls : out.tool_calls);
  const finish =
    typeof choice?.finish_reason === "string"
      ? choice.finish_reason
      : toolCalls.length > 0
        ? "tool_calls"
        : "stop";
  const usage = isRecord(out.usage) ? out.usage : {};
  return {
    id: `chatcmpl-workers-ai-${crypto.randomUUID()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finish,
      },
    ],
    usage: {
      prompt_tokens: Number(usage.prompt_tokens ?? 0),
      completion_tokens: Number(usage.completion_tokens ?? 0),
      total_tokens: Number(usage.total_tokens ?? 0),
    },
  };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** `promise`, or the abort of `signal` (the SDK's timeout aborts the fetch). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | null | undefined): Promise<T> {
  if (signal == null) return promise;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason ?? new DOMException("aborted", "AbortError"));
    if (signal.aborted) {
      abort();
      return;
    }
    signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/** A `fetch` serving Chat Completions from `ai` (pass it as the SDK's `fetch`, with `stream: false`). */
export function workersAiFetch(ai: ChatRunner): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (request.method !== "POST" || !new URL(request.url).pathname.endsWith("/chat/completions")) {
      return json(404, {
        error: { message: "only POST /chat/completions is served", type: "not_found" },
      });
    }
    const body: unknown = await request.json();
    if (!isRecord(body) || typeof body.model !== "string" || body.stream === true) {
      return json(400, {
        error: {
          message: "expected a non-streaming Chat Completions body",
          type: "invalid_request_error",
        },
      });
    }
    let output: unknown;
    try {
      output = await untilAborted(ai.run(body.model, runInput(body)), init?.signal);
    } catch (error) {
      if (init?.signal?.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      return json(502, { error: { message: `Workers AI: ${message}`, type: "server_error" } });
    }
    return json(200, completionOf(body.model, output));
  };
}
