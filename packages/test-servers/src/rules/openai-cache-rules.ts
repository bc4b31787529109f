/**
 * @module rules/openai-cache-rules
 * OpenAI's explicit prompt caching, as the scripted upstream enforces it
 * (developers.openai.com/api/docs/guides/prompt-caching; the `openai` SDK's
 * `PromptCacheOptions` and `PromptCacheBreakpoint`): `prompt_cache_options`
 * (`mode` `implicit` or `explicit`, `ttl` `30m`) and `prompt_cache_breakpoint`
 * on input content parts (`{ mode: "explicit", ttl?: "30m" | "12h" }`) are
 * taken from the GPT-5.6 family on and refused, naming the field, on earlier
 * models; a Responses output part (`output_text`) has no breakpoint field. A
 * request writes up to four breakpoints: the latest three explicit ones beside
 * the implicit one, or the latest four in `explicit` mode; earlier ones are
 * not written (no error): `writtenBreakpoints` says which are.
 */

import { isObject, type JsonObject } from "../json.ts";
import type { Violation } from "./violation.ts";

/** Whether `model` takes explicit breakpoints: GPT-5.6 and later (`gpt-5.6…`, `gpt-5-6…`, `gpt-6…`). */
export function breakpointModel(model: string): boolean {
  const family = /(?:^|\/)gpt-(\d+)(?:[.-](\d+))?/.exec(model);
  if (family === null) return false;
  const major = Number(family[1]);
  const minor = Number(family[2] ?? 0);
  return major > 5 || (major === 5 && minor >= 6);
}

function invalid(message: string, param: string, code: string): Violation {
  return { status: 400, message, param, errorType: "invalid_request_error", code };
}

const unsupported = (param: string) =>
  invalid(
    `Unsupported parameter: '${param}' is not supported with this model.`,
    param,
    "unsupported_parameter",
  );

function badValue(value: unknown, supported: readonly string[], param: string): Violation {
  const list = supported.map((name) => `'${name}'`).join(" and ");
  return invalid(
    `Invalid value: '${String(value)}'. Supported values are: ${list}.`,
    param,
    "invalid_value",
  );
}

/** The messages (Chat) or input items (Responses) that carry content parts. */
function turns(body: JsonObject, protocol: "chat" | "responses"): JsonObject[] {
  const list = protocol === "chat" ? body.messages : body.input;
  return Array.isArray(list) ? (list as unknown[]).map((item) => (isObject(item) ? item : {})) : [];
}

function listName(protocol: "chat" | "responses"): string {
  return protocol === "chat" ? "messages" : "input";
}

/** Every part carrying `prompt_cache_breakpoint`, in order. */
function marked(
  body: JsonObject,
  protocol: "chat" | "responses",
): Array<{ message: number; part: number; block: JsonObject }> {
  const found: Array<{ message: number; part: number; block: JsonObject }> = [];
  turns(body, protocol).forEach((turn, message) => {
    if (!Array.isArray(turn.content)) return;
    (turn.content as unknown[]).forEach((block, part) => {
      if (isObject(block) && block.prompt_cache_breakpoint !== undefined) {
        found.push({ message, part, block });
      }
    });
  });
  return found;
}

export function openaiCacheViolation(
  body: JsonObject,
  protocol: "chat" | "responses",
): Violation | undefined {
  const supported = breakpointModel(String(body.model ?? ""));
  const options = body.prompt_cache_options;
  if (options !== undefined && options !== null) {
    if (!supported) return unsupported("prompt_cache_options");
    if (!isObject(options)) return badValue(options, ["an object"], "prompt_cache_options");
    if (options.mode !== undefined && options.mode !== "implicit" && options.mode !== "explicit") {
      return badValue(options.mode, ["implicit", "explicit"], "prompt_cache_options.mode");
    }
    if (options.ttl !== undefined && options.ttl !== "30m") {
      return badValue(options.ttl, ["30m"], "prompt_cache_options.ttl");
    }
  }
  for (const { message, part, block } of marked(body, protocol)) {
    const param = `${listName(protocol)}[${message}].content[${part}].prompt_cache_breakpoint`;
    if (!supported) return unsupported(param);
    if (block.type === "output_text") {
      return invalid(`Unknown parameter: '${param}'.`, param, "unknown_parameter");
    }
    const breakpoint = block.prompt_cache_breakpoint;
    if (!isObject(breakpoint) || breakpoint.mode !== "explicit") {
      return badValue(
        isObject(breakpoint) ? breakpoint.mode : breakpoint,
        ["explicit"],
        `${param}.mode`,
      );
    }
    if (breakpoint.ttl !== undefined && breakpoint.ttl !== "30m" && breakpoint.ttl !== "12h") {
      return badValue(breakpoint.ttl, ["30m", "12h"], `${param}.ttl`);
    }
  }
  return undefined;
}

/** The breakpoints OpenAI writes of a valid request: the latest three (implicit mode) or four. */
export function writtenBreakpoints(
  body: JsonObject,
  protocol: "chat" | "responses",
): Array<{ message: number; part: number }> {
  const options = isObject(body.prompt_cache_options) ? body.prompt_cache_options : {};
  const writes = options.mode === "explicit" ? 4 : 3;
  return marked(body, protocol)
    .slice(-writes)
    .map(({ message, part }) => ({ message, part }));
}
