/**
 * @module request-text
 * Reading what a model request says, whatever its protocol: the text of its
 * conversation (Chat `messages`, Anthropic `messages` and `system`, Responses
 * `input` and `instructions`), and its last user message.
 */

import { contentText, isObject } from "./json.ts";

/** The part of a request's body these read. */
export interface ConversationBody {
  messages?: unknown;
  input?: unknown;
  instructions?: unknown;
  system?: unknown;
  /** Gemini. */
  contents?: unknown;
  systemInstruction?: unknown;
}

/** The conversation of a request: `messages`, or Responses `input` (a string is one user message). */
function conversation(body: ConversationBody | undefined): unknown[] {
  if (body === undefined) return [];
  if (Array.isArray(body.messages)) return body.messages;
  if (Array.isArray(body.contents)) return body.contents;
  if (typeof body.input === "string") return [{ role: "user", content: body.input }];
  return Array.isArray(body.input) ? body.input : [];
}

/** The text of a message's `content` (a string or text parts), or of a Responses tool output. */
function itemText(item: unknown): string {
  if (!isObject(item)) return "";
  const content = item.content ?? item.output ?? item.parts;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) => (isObject(part) && typeof part.text === "string" ? part.text : ""))
    .join("\n");
}

/** The text of every message of a request, joined (the system prompt or `instructions` first). */
export function requestText(request: { body: ConversationBody | undefined }): string {
  const texts = conversation(request.body).map(itemText);
  const system =
    request.body?.instructions ??
    request.body?.system ??
    geminiSystem(request.body?.systemInstruction);
  const head = typeof system === "string" ? system : contentText(system);
  return (head === "" ? texts : [head, ...texts]).join("\n\n");
}

/** The last user message of a request (the prompt under the system prompt), when it is text. */
export function lastUserText(request: { body: ConversationBody | undefined }): string {
  const users = conversation(request.body).filter((item) => isObject(item) && item.role === "user");
  const last = users.at(-1);
  return isObject(last) && typeof last.content === "string" ? last.content : "";
}

/** The parts of Gemini's `systemInstruction`, read as a system prompt's content. */
function geminiSystem(instruction: unknown): unknown {
  return isObject(instruction) ? instruction.parts : instruction;
}
