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
 * checks) get a short, fitting answer and do not count as turns; so does an
 * agent's own compaction request (its `/compact`: the agent's summarization
 * prompt in the newest user message, after the last tool results or alone,
 * tools declared or not), answered with a
 * summary. After one, the agent's history holds no tool result: the model
 * goes on from the last step it answered (asking for it again), as a model
 * reading the summary would.
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

/**
 * How the agents ask their model to compact: Claude Code's "create a detailed summary of the
 * conversation so far", Codex's "CONTEXT CHECKPOINT COMPACTION".
 */
const COMPACTION_PROMPT = /detailed summary of the conversation|CONTEXT CHECKPOINT COMPACTION/i;

/** Whether a request is the agent's own compaction (see the module). */
export function isCompactionRequest(request: ModelRequest): boolean {
  return COMPACTION_PROMPT.test(request.userText);
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
    // After the agent's own compaction: from the last step answered (none: the task's start).
    if (request.toolResults.length === 0) return answered.length === 0 ? 0 : Math.max(...answered);
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
    isSide: (request) => request.tools.length === 0 || isCompactionRequest(request),
    finished: () => answered.includes(task.steps.length - 1),
    answer(request) {
      if (isCompactionRequest(request)) {
        const last = answered.length === 0 ? 0 : Math.max(...answered);
        return {
          text: `<summary>Notes task: steps up to ${last} done; go on from step ${last}.</summary>`,
        };
      }
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
