/**
 * @module demo/transcript
 * Reads a transcript in the corpus format (`{ source, license, origin, notes,
 * messages }`, Chat Completions messages) and cuts it into what an agent
 * would send turn by turn: the head (everything before the first assistant
 * message), then one turn per assistant message together with the tool
 * results and user messages that follow it.
 */

import { readFileSync } from "node:fs";
import type { ChatMessage } from "@condense/core";

/** A message of the transcript (the corpus holds Chat Completions messages). */
export type Message = ChatMessage;

export interface Transcript {
  path: string;
  source: string;
  license: string;
  origin: string;
  messages: Message[];
  /** Messages before the first assistant message (system prompt, task). */
  head: Message[];
  /** Each turn: the model's answer and what came back before its next answer. */
  turns: Message[][];
}

/** A first check only; the service validates each message fully when it is appended. */
function isMessage(value: unknown): value is Message {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { role?: unknown }).role === "string"
  );
}

export function loadTranscript(path: string): Transcript {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(
      `cannot read transcript ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const record = (typeof parsed === "object" && parsed !== null ? parsed : {}) as Record<
    string,
    unknown
  >;
  const messages = Array.isArray(parsed) ? parsed : record.messages;
  if (!Array.isArray(messages) || messages.length === 0 || !messages.every(isMessage)) {
    throw new Error(
      `${path} is not a transcript: expected { "messages": [ { "role": ..., "content": ... }, ... ] } (the format of ../shared/corpus/normalized/*.json)`,
    );
  }
  const firstAnswer = messages.findIndex((message) => message.role === "assistant");
  const headEnd = firstAnswer < 0 ? messages.length : firstAnswer;
  const turns: Message[][] = [];
  for (const message of messages.slice(headEnd)) {
    const current = turns.at(-1);
    if (message.role === "assistant" || current === undefined) turns.push([message]);
    else current.push(message);
  }
  return {
    path,
    source: typeof record.source === "string" ? record.source : "unknown",
    license: typeof record.license === "string" ? record.license : "unknown",
    origin: typeof record.origin === "string" ? record.origin : path,
    messages,
    head: messages.slice(0, headEnd),
    turns,
  };
}
