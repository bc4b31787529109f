/**
 * @module ai-sdk/message-keys
 * What identifies a canonical message: `canonicalKey`, by which the
 * middleware compares what the session holds with what the AI SDK sends, and
 * `PromptMemory`, which keeps every AI SDK message the middleware converted
 * under that key and the message's provider data, to give back the original
 * when the session's context holds that message again (the canonical format
 * has no place for provider options on parts, assistant files, custom parts,
 * provider-executed tool calls and results, approval responses, or the exact
 * output kind of a tool result, so nothing of them is lost within a process).
 */

import { stableJson } from "../generated/stable-json.generated.js";
import { type ChatMessage, type Original, textOf } from "./canonical-message.js";

/**
 * What identifies a canonical message when the middleware compares what the session holds with
 * what the AI SDK sends: role, visible content, tool calls and the id a tool message answers.
 * Provider data (thinking signatures) and the shape of the content (one string or text parts)
 * do not count, so a message reads the same whichever way it took.
 */
export function canonicalKey(message: ChatMessage): string {
  const content =
    message.content === null
      ? ""
      : typeof message.content === "string"
        ? message.content
        : message.content.every((part) => part.type === "text")
          ? textOf(message.content)
          : message.content;
  const calls = (message.tool_calls ?? []).map((call) =>
    call.type === "custom"
      ? [call.id, call.custom.name, { custom: call.custom.input }]
      : [call.id, call.function.name, normalizedArguments(call.function.arguments)],
  );
  const role = message.role === "developer" ? "system" : message.role;
  return JSON.stringify([role, content, calls, message.tool_call_id ?? null]);
}

/** Arguments as parsed JSON re-serialized, so spacing or key quoting styles compare equal. */
function normalizedArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

/**
 * What the middleware converted, to give back unchanged: by canonical key and provider data, so
 * two answers that read the same but thought differently (their reasoning and signatures) each
 * get their own back.
 */
export class PromptMemory {
  readonly #originals = new Map<string, Original>();

  remember(message: ChatMessage, original: Original): void {
    this.#originals.set(memoryKey(message), original);
  }

  original(message: ChatMessage): Original | undefined {
    return this.#originals.get(memoryKey(message));
  }
}

function memoryKey(message: ChatMessage): string {
  return `${canonicalKey(message)}|${stableJson(message.provider_data ?? null)}`;
}
