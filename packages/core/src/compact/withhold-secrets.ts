/**
 * @module compact/withhold-secrets
 * No summary holds a secret. Before a range goes to any summarizer (LLM,
 * deterministic or the caller's own), every secret in it (the patterns of
 * `summary/redact`) is replaced by a pointer to where the original stays in
 * the transcript: `[redacted:tool-call:<id>]` for a tool call's arguments or
 * output, else the message: `[redacted:seq:<n>]` with the caller's seq,
 * `[redacted:message:<i>]` (index in the Chat Completions input) or
 * `[redacted:user-message:<k>]` (the k-th message of that role, other
 * formats). A previous summary and a carried ledger written before secrets
 * were withheld get `[redacted:earlier-summary]`.
 */

import { perMessageNumbers } from "../errors/option-checks.js";
import type { ChatMessage, MessageContent, MessageFormat } from "../messages/types.js";
import type { Ledger } from "../summary/ledger-types.js";
import { withholdSecrets } from "../summary/redact.js";

/** Where each input message is, for the pointers; looked up by the canonical message object. */
export type MessageLabels = WeakMap<ChatMessage, string>;

/** The pointer location of secrets from a previous summary or a carried ledger. */
export const EARLIER_SUMMARY = "earlier-summary";

/** Tool-call ids that can sit in a pointer as they are; any other is named by its message. */
const SAFE_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * Labels the canonical messages of one `compact()` call. `seqs` (Chat
 * Completions input only, one entry per message, null where there is none)
 * are the caller's own numbers, such as the Worker's transcript seq.
 */
export function labelMessages(
  canonical: readonly ChatMessage[],
  format: MessageFormat,
  seqs: unknown,
): MessageLabels {
  const labels: MessageLabels = new WeakMap();
  if (seqs !== undefined) {
    const numbers = perMessageNumbers("seqs", seqs, canonical.length, format);
    canonical.forEach((message, index) => {
      const seq = numbers[index];
      if (typeof seq === "number") labels.set(message, `seq:${seq}`);
    });
    return labels;
  }
  if (format === "openai") {
    for (const [index, message] of canonical.entries()) labels.set(message, `message:${index}`);
    return labels;
  }
  const ordinals = new Map<string, number>();
  for (const message of canonical) {
    const ordinal = (ordinals.get(message.role) ?? 0) + 1;
    ordinals.set(message.role, ordinal);
    labels.set(message, `${message.role}-message:${ordinal}`);
  }
  return labels;
}

function withholdContent(content: MessageContent, where: string): MessageContent {
  if (typeof content === "string") return withholdSecrets(content, where);
  if (content === null) return null;
  let changed = false;
  const parts = content.map((part) => {
    if (part.type !== "text") return part;
    const text = withholdSecrets(part.text, where);
    if (text === part.text) return part;
    changed = true;
    return { ...part, text };
  });
  return changed ? parts : content;
}

function withholdJson(value: unknown, where: string): unknown {
  if (typeof value === "string") return withholdSecrets(value, where);
  if (Array.isArray(value)) return value.map((item) => withholdJson(item, where));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, withholdJson(item, where)]),
    );
  }
  return value;
}

/** Tool-call arguments with secrets withheld, still valid JSON when they were. */
function withholdArguments(text: string, where: string): string {
  const flat = withholdSecrets(text, where);
  if (flat === text) return text;
  try {
    // Each string value on its own, so that a pointer never cuts a JSON escape in half.
    return JSON.stringify(withholdJson(JSON.parse(text), where));
  } catch {
    return flat;
  }
}

/** `messages` with every secret replaced by a pointer; unchanged messages are the same objects. */
export function withholdInMessages(
  messages: readonly ChatMessage[],
  labels: MessageLabels,
): ChatMessage[] {
  return messages.map((message) => {
    const label = labels.get(message) ?? `${message.role}-message`;
    const own =
      message.role === "tool" &&
      message.tool_call_id !== undefined &&
      SAFE_ID.test(message.tool_call_id)
        ? `tool-call:${message.tool_call_id}`
        : label;
    const content = withholdContent(message.content, own);
    let changed = content !== message.content;
    const calls = message.tool_calls?.map((call) => {
      const where = SAFE_ID.test(call.id) ? `tool-call:${call.id}` : label;
      if (call.type === "custom") {
        const input = withholdSecrets(call.custom.input, where);
        if (input === call.custom.input) return call;
        changed = true;
        return { ...call, custom: { ...call.custom, input } };
      }
      const args = withholdArguments(call.function.arguments, where);
      if (args === call.function.arguments) return call;
      changed = true;
      return { ...call, function: { ...call.function, arguments: args } };
    });
    if (!changed) return message;
    return { ...message, content, ...(calls === undefined ? {} : { tool_calls: calls }) };
  });
}

/** A carried ledger with secrets withheld (one stored before they were). */
export function withholdInLedger(ledger: Ledger): Ledger {
  const clean = (values: readonly string[]) => [
    ...new Set(values.map((value) => withholdSecrets(value, EARLIER_SUMMARY))),
  ];
  const withheld = (value: string) => withholdSecrets(value, EARLIER_SUMMARY);
  return {
    ...ledger,
    identifiers: clean(ledger.identifiers),
    files: { read: clean(ledger.files.read), modified: clean(ledger.files.modified) },
    userRequests: clean(ledger.userRequests),
    ...(ledger.errors === undefined
      ? {}
      : {
          errors: ledger.errors.map((error) => ({
            ...error,
            signature: withheld(error.signature),
            step: withheld(error.step),
          })),
        }),
    ...(ledger.commands === undefined
      ? {}
      : {
          commands: ledger.commands.map((command) => ({
            ...command,
            step: withheld(command.step),
          })),
        }),
  };
}
