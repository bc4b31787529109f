/**
 * @module summary/range-reading
 * What the compacted range did, read once for the extractive summary: the
 * user's requests, the assistant's texts, and every tool call with its result,
 * its outcome (see `summary/call-outcome`), the files it touched and, for a
 * test or build run, its counts; plus how a call is written in a line (its
 * command or tool and file, how it ended) and when a later run resolved a
 * failed one. Results are paired with calls by id and occurrence, since some
 * servers number calls `call_0`… afresh every turn.
 */

import { toolResultCalls } from "../messages/call-ids.js";
import { messageText, toolCallName } from "../messages/content.js";
import type { ChatMessage, ToolCall } from "../messages/types.js";
import {
  type CallOutcome,
  type CommandRun,
  commandRun,
  outcomeOf,
  outcomeWords,
  stepKey,
  testCounts,
} from "./call-outcome.js";
import { classifyUserMessage } from "./ledger.js";
import type { FileTouch } from "./shell-touches.js";
import { codeSpan, oneLine } from "./summary-lines.js";
import {
  type EditorState,
  filesTouched,
  isShellCall,
  parseArguments,
  shellCommandOf,
} from "./tool-calls.js";

const MAX_COMMAND = 160;

export const MAX_SENTENCE = 300;

export interface CallRecord {
  call: ToolCall;
  name: string;
  shell: boolean;
  command?: string;
  /** The first file the call touches. */
  target?: string;
  touches: FileTouch[];
  result?: string;
  outcome: CallOutcome;
  /** A command that runs tests (`pytest`, `mix test`) or builds or checks (`make`, `tsc`). */
  run?: CommandRun;
  /** The counts its output ends with, for a test or build command. */
  counts?: string;
}

export interface Analysis {
  requests: { text: string; index: number }[];
  assistantTexts: string[];
  lastAssistantText: string | undefined;
  /** The last assistant text came without tool calls (the turn ended). */
  lastAssistantIsFinal: boolean;
  lastTurnEnd: number;
  calls: CallRecord[];
  todos: string[] | undefined;
}

export function analyze(messages: readonly ChatMessage[]): Analysis {
  // Results by call id *and occurrence*: servers that number calls `call_0`… every turn reuse ids.
  const results = new Map<string, string>();
  for (const [index, result] of toolResultCalls(messages)) {
    const key = `${result.occurrence}:${result.toolCallId}`;
    const message = messages[index];
    if (message !== undefined && !results.has(key)) results.set(key, messageText(message));
  }
  const occurrences = new Map<string, number>();
  const analysis: Analysis = {
    requests: [],
    assistantTexts: [],
    lastAssistantText: undefined,
    lastAssistantIsFinal: false,
    lastTurnEnd: -1,
    calls: [],
    todos: undefined,
  };
  const editor: EditorState = {};
  messages.forEach((message, index) => {
    if (message.role === "user") {
      const text = messageText(message).trim();
      if (text !== "" && classifyUserMessage(text, messages[index - 1]) === "request") {
        analysis.requests.push({ text, index });
      }
      return;
    }
    if (message.role !== "assistant") return;
    const text = messageText(message).trim();
    const calls = message.tool_calls ?? [];
    if (text !== "") {
      analysis.assistantTexts.push(text);
      analysis.lastAssistantText = text;
      analysis.lastAssistantIsFinal = calls.length === 0;
      if (calls.length === 0) analysis.lastTurnEnd = index;
    }
    for (const call of calls) {
      const occurrence = (occurrences.get(call.id) ?? 0) + 1;
      occurrences.set(call.id, occurrence);
      analysis.calls.push(record(call, results.get(`${occurrence}:${call.id}`), editor));
      const todos = todoItems(call);
      if (todos !== undefined) analysis.todos = todos;
    }
  });
  return analysis;
}

function record(call: ToolCall, result: string | undefined, editor: EditorState): CallRecord {
  const shell = isShellCall(call);
  const command = shell ? shellCommandOf(call) : undefined;
  // One entry per file: a command can name the same file thousands of times (`echo x>x>x…`).
  const seen = new Set<string>();
  const touches = filesTouched(call, editor).filter((touch) => {
    const key = `${touch.kind}:${touch.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const target = touches[0]?.path;
  const run = command === undefined ? undefined : commandRun(command);
  const counts = run !== undefined && result !== undefined ? testCounts(result) : undefined;
  return {
    call,
    name: toolCallName(call),
    shell,
    ...(command === undefined ? {} : { command }),
    ...(target === undefined ? {} : { target }),
    touches,
    ...(result === undefined ? {} : { result }),
    outcome: outcomeOf(result, command),
    ...(run === undefined ? {} : { run }),
    ...(counts === undefined ? {} : { counts }),
  };
}

/** Open items of a `TodoWrite` (`todos`) or `update_plan` (`plan`) call; undefined for other calls. */
function todoItems(call: ToolCall): string[] | undefined {
  const args = parseArguments(call);
  const list = Array.isArray(args.todos)
    ? args.todos
    : Array.isArray(args.plan)
      ? args.plan
      : undefined;
  if (list === undefined || !/todo|plan/i.test(toolCallName(call))) return undefined;
  const items: string[] = [];
  for (const entry of list) {
    if (typeof entry !== "object" || entry === null) continue;
    const item = entry as Record<string, unknown>;
    const text = item.content ?? item.step ?? item.title ?? item.text;
    const status = typeof item.status === "string" ? item.status : "pending";
    if (typeof text !== "string" || status === "completed" || status === "done") continue;
    items.push(`- [${status}] ${oneLine(text, MAX_SENTENCE)}`);
  }
  return items;
}

export function callKey(call: CallRecord): string {
  if (call.command !== undefined) return `$ ${firstLine(call.command)}`;
  return `${call.name} ${call.target ?? ""}`;
}

/** What a later success must repeat to resolve a failure (`stepKey`). */
export function resolutionKey(call: CallRecord): string {
  return stepKey(call);
}

/** Whether a later call of the range repeated the failed step `index` and succeeded. */
export function resolvedLater(calls: readonly CallRecord[], index: number): boolean {
  const key = resolutionKey(calls[index] as CallRecord);
  return calls
    .slice(index + 1)
    .some((later) => later.outcome.status === "ok" && resolutionKey(later) === key);
}

export function firstLine(command: string): string {
  return (command.trim().split("\n")[0] ?? "").replace(/\s+/g, " ");
}

export function describeCall(call: CallRecord): string {
  if (call.command !== undefined) {
    const line = firstLine(call.command);
    const more = call.command.trim().includes("\n") || line.length > MAX_COMMAND;
    return `$ ${oneLine(line, MAX_COMMAND)}${more && line.length <= MAX_COMMAND ? " …" : ""}`;
  }
  return call.target === undefined ? call.name : `${call.name} ${call.target}`;
}

/** How a call ended, with its test counts: `ok (12 passed)`, `exit 1 (1 failed, 9 passed)`. */
export function outcomeHead(call: CallRecord): string {
  return outcomeWords(call.outcome, call.counts);
}

/** How a call ended and, for a failure, its error line quoted as the output it is. */
export function outcomeText(call: CallRecord): string {
  const { error } = call.outcome;
  return error === undefined
    ? outcomeHead(call)
    : `${outcomeHead(call)}, output: ${codeSpan(error)}`;
}
