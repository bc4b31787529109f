/**
 * @module model/scripted-model
 * The deterministic model behind the scripted upstream. It drives the task
 * (`model/task`) one step per main request, in the agent's own tool dialect,
 * and checks on every request that the output of the tool it asked for last
 * reached it whole: each expected marker in the newest tool result (a
 * placeholder such as "[Condense pruned …]" or a cut output is a failure,
 * recorded with what arrived). Where it is comes from the newest tool result's
 * call id alone (or, for a client that names calls itself, from the call the
 * result answers: `model/call-steps`), so a retried request gets the same
 * answer and a compacted history changes nothing.
 *
 * Side requests (a request that declares no tools: titles, topic and quota
 * checks) get a short, fitting answer and do not count as turns.
 */

import { callSteps } from "./call-steps.ts";
import { type AgentName, toolCallFor } from "./dialects.ts";
import type { ModelAnswer, ModelRequest } from "./model-turn.ts";
import type { Task } from "./task.ts";

/** The call id of step `index`: the step is read back from it. */
export function stepCallId(index: number): string {
  return `e2e_step_${String(index).padStart(2, "0")}`;
}

const STEP_IN_ID = /e2e_step_(\d+)/;

export interface ModelFailure {
  /** The step whose tool output was checked. */
  step: number;
  problem: string;
  /** The start of what arrived. */
  received: string;
}

export interface ScriptedModel {
  answer(request: ModelRequest): ModelAnswer;
  /** Whether a request is a side request (answered, but no turn of the task). */
  isSide(request: ModelRequest): boolean;
  readonly failures: ModelFailure[];
  /** The steps answered so far, in order (a retry repeats one). */
  readonly answered: number[];
  /** The task's last step was answered. */
  finished(): boolean;
}

function sideAnswer(request: ModelRequest): ModelAnswer {
  const asked = `${request.systemText}\n${request.userText}`.toLowerCase();
  if (asked.includes("json")) {
    return { text: JSON.stringify({ title: "Notes report", isNewTopic: true }) };
  }
  if (asked.includes("title")) return { text: "Notes report" };
  return { text: "OK" };
}

export function scriptedModel(options: {
  agent: AgentName;
  task: Task;
  workspace: string;
}): ScriptedModel {
  const { agent, task, workspace } = options;
  const failures: ModelFailure[] = [];
  const answered: number[] = [];
  const checked = new Set<number>();
  const stepOfCall = callSteps(options);

  const check = (request: ModelRequest): number => {
    if (request.toolResults.length === 0) return 0;
    const newest = request.toolResults.at(-1);
    const match = newest === undefined ? null : STEP_IN_ID.exec(newest.callId);
    // Without the model's id (Gemini CLI names calls itself), the call it answers names the step.
    const called = newest?.call === undefined ? undefined : stepOfCall(newest.call);
    if (newest === undefined || (match === null && called === undefined)) {
      failures.push({
        step: -1,
        problem: `the newest tool result has a call id the model never issued (${newest?.callId})`,
        received: newest?.text.slice(0, 300) ?? "",
      });
      return answered.at(-1) ?? 0;
    }
    const step = match === null ? (called ?? -1) : Number(match[1]);
    const expected = task.steps[step]?.expect ?? [];
    const missing = expected.filter((text) => !newest.text.includes(text));
    // A retried request carries the same result again: it is judged once.
    if (missing.length > 0 && !checked.has(step)) {
      failures.push({
        step,
        problem: `the output of step ${step} reached the model without ${missing.join(", ")}`,
        received: newest.text.slice(0, 300),
      });
    }
    checked.add(step);
    return step + 1;
  };

  return {
    failures,
    answered,
    isSide: (request) => request.tools.length === 0,
    finished: () => answered.includes(task.steps.length - 1),
    answer(request) {
      if (request.tools.length === 0) return sideAnswer(request);
      const index = Math.min(check(request), task.steps.length - 1);
      answered.push(index);
      const step = task.steps[index];
      if (step === undefined) return { text: "Nothing left to do." };
      const thinking = request.reasoning ? `Step ${index} of the notes task.` : undefined;
      const withThinking = (answer: ModelAnswer): ModelAnswer =>
        thinking === undefined ? answer : { thinking, ...answer };
      if (step.action.kind === "finish") return withThinking({ text: step.action.text });
      return withThinking({
        text: `Step ${index}.`,
        call: toolCallFor(agent, step.action, stepCallId(index), workspace),
      });
    },
  };
}
