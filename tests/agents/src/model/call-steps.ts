/**
 * @module model/call-steps
 * The step a tool call belongs to, read from the call itself (its name and
 * arguments) for clients that do not send the model's call ids back: Gemini's
 * API pairs a function response with its call by position and name, and
 * Gemini CLI answers every call with an id of its own
 * (`run_shell_command_<ms>_0`). Every step of the task makes a call no other
 * step makes (its own command, path or content), so the call names its step.
 */

import { type AgentName, toolCallFor } from "./dialects.ts";
import type { Task } from "./task.ts";

/** A call as a protocol read it back: its name and arguments. */
export interface CallSeen {
  name: string;
  input: unknown;
}

/** JSON with object keys in order, so equal arguments give equal text whatever order they came in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(",")}}`;
}

const keyOf = (call: CallSeen) => `${call.name}\n${canonical(call.input)}`;

/** Finds the step of a call in `agent`'s dialect: undefined for a call no step makes. */
export function callSteps(options: {
  agent: AgentName;
  task: Task;
  workspace: string;
}): (call: CallSeen) => number | undefined {
  const steps = new Map<string, number>();
  for (const step of options.task.steps) {
    if (step.action.kind === "finish") continue;
    // The id plays no part: the call is known by its name and arguments.
    const call = toolCallFor(options.agent, step.action, "", options.workspace);
    steps.set(keyOf({ name: call.name, input: call.input }), step.index);
  }
  return (call) => steps.get(keyOf(call));
}
