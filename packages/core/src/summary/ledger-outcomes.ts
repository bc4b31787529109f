/**
 * @module summary/ledger-outcomes
 * What went wrong and how the runs ended, carried by code as identifiers are: every distinct
 * error signature a failed call's output named (`summary/error-signatures`) with its state
 * (failing, or fixed once a later run of the same step succeeded), and every test or build step
 * (`commandRun`) with the outcome of its latest run. A range is merged after what earlier
 * compactions carried: an entry the range meets again moves to the end (the lists run least
 * recently seen first), an earlier error is fixed by any success of its step in the range, and
 * merging the same range twice changes nothing. Past a cap the oldest fixed errors (passing
 * runs) go first, then the oldest others.
 *
 * Signatures are tool output: they are kept as the data they are, secrets withheld, and written
 * in summaries as quoted output, never as statements.
 */

import { toolResultCalls } from "../messages/call-ids.js";
import { messageText, toolCallName } from "../messages/content.js";
import type { ChatMessage } from "../messages/types.js";
import {
  type CallOutcome,
  commandRun,
  outcomeOf,
  outcomeWords,
  stepKey,
  testCounts,
} from "./call-outcome.js";
import { errorSignatures } from "./error-signatures.js";
import type { LedgerCommand, LedgerError } from "./ledger-types.js";
import { withholdSecrets } from "./redact.js";
import { filesTouched, isShellCall, shellCommandOf } from "./tool-calls.js";

/** Error signatures a ledger keeps at most. */
export const MAX_LEDGER_ERRORS = 60;
/** Test and build steps a ledger keeps at most. */
export const MAX_LEDGER_COMMANDS = 40;

export interface Outcomes {
  errors: LedgerError[];
  commands: LedgerCommand[];
}

/** Longest step kept, in characters: a command line can be megabytes. */
const MAX_STEP_CHARS = 160;

/** A step on one line, at most MAX_STEP_CHARS. */
function clip(step: string): string {
  const flat = step.replace(/\s+/g, " ").trim();
  return flat.length <= MAX_STEP_CHARS ? flat : `${flat.slice(0, MAX_STEP_CHARS - 1)}…`;
}

/** One call of a range as the outcomes read it. */
interface RangeCall {
  step: string;
  outcome: CallOutcome;
  signatures: readonly string[];
  run?: { step: string; kind: "test" | "build"; outcome: string };
}

/** What a result says, by tool message: a range is read more than once per compaction. */
const readResults = new WeakMap<
  ChatMessage,
  {
    command: string | undefined;
    outcome: CallOutcome;
    signatures: readonly string[];
    counts?: string;
  }
>();

function readResult(message: ChatMessage, command: string | undefined, runs: boolean) {
  const known = readResults.get(message);
  if (known !== undefined && known.command === command) return known;
  const text = messageText(message);
  const outcome = outcomeOf(text, command);
  // A failure whose output names no error signature is known by its error line (`outcomeOf`).
  const found = outcome.status !== "failed" ? [] : errorSignatures(text);
  const signatures = (
    found.length > 0 ? found : outcome.error === undefined ? [] : [outcome.error]
  ).map((line) => withholdSecrets(line));
  const counts = runs ? testCounts(text) : undefined;
  const read = { command, outcome, signatures, ...(counts === undefined ? {} : { counts }) };
  readResults.set(message, read);
  return read;
}

/** The calls of `messages` with a result, in order, paired by id and occurrence (ids may be reused). */
function rangeCalls(messages: readonly ChatMessage[]): RangeCall[] {
  const results = new Map<string, ChatMessage>();
  for (const [index, result] of toolResultCalls(messages)) {
    const key = `${result.occurrence}:${result.toolCallId}`;
    const message = messages[index];
    if (message !== undefined && !results.has(key)) results.set(key, message);
  }
  const occurrences = new Map<string, number>();
  const calls: RangeCall[] = [];
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.tool_calls ?? []) {
      const occurrence = (occurrences.get(call.id) ?? 0) + 1;
      occurrences.set(call.id, occurrence);
      const result = results.get(`${occurrence}:${call.id}`);
      if (result === undefined) continue;
      const command = isShellCall(call) ? shellCommandOf(call) : undefined;
      const run = command === undefined ? undefined : commandRun(command);
      const read = readResult(result, command, run !== undefined);
      const target = filesTouched(call)[0]?.path;
      calls.push({
        step: withholdSecrets(
          clip(
            stepKey({
              name: toolCallName(call),
              ...(command === undefined ? {} : { command }),
              ...(target === undefined ? {} : { target }),
            }),
          ),
        ),
        outcome: read.outcome,
        signatures: read.signatures,
        ...(run === undefined
          ? {}
          : {
              run: {
                step: withholdSecrets(clip(run.step)),
                kind: run.kind,
                outcome: outcomeWords(read.outcome, read.counts),
              },
            }),
      });
    }
  }
  return calls;
}

/** `list` without the entries `drop` picks, oldest first, until it holds `max`. */
function capped<T>(list: T[], max: number, resolved: (entry: T) => boolean): T[] {
  let excess = list.length - max;
  if (excess <= 0) return list;
  const dropped = new Set<T>();
  for (const pass of [true, false]) {
    for (const entry of list) {
      if (excess === 0) break;
      if (resolved(entry) === pass && !dropped.has(entry)) {
        dropped.add(entry);
        excess--;
      }
    }
  }
  return list.filter((entry) => !dropped.has(entry));
}

/** The outcomes of `messages` merged after `previous` (see the module). */
export function mergeOutcomes(
  previous: Partial<Outcomes>,
  messages: readonly ChatMessage[],
): Outcomes {
  const calls = rangeCalls(messages);
  const errors = new Map<string, LedgerError>();
  for (const error of previous.errors ?? []) errors.set(error.signature, { ...error });
  // Where each signature was last met in the range, and by which step.
  const met = new Map<string, { index: number; step: string }>();
  calls.forEach((call, index) => {
    for (const signature of call.signatures) {
      met.delete(signature);
      met.set(signature, { index, step: call.step });
    }
  });
  const succeeded = (step: string, after: number) =>
    calls.some(
      (call, index) => index > after && call.step === step && call.outcome.status === "ok",
    );
  for (const error of errors.values()) {
    if (!met.has(error.signature) && succeeded(error.step, -1)) error.state = "fixed";
  }
  for (const [signature, { index, step }] of met) {
    errors.delete(signature);
    errors.set(signature, { signature, step, state: succeeded(step, index) ? "fixed" : "failing" });
  }

  const commands = new Map<string, LedgerCommand>();
  for (const command of previous.commands ?? []) commands.set(command.step, { ...command });
  for (const call of calls) {
    if (call.run === undefined || call.outcome.status === "pending") continue;
    commands.delete(call.run.step);
    commands.set(call.run.step, {
      step: call.run.step,
      kind: call.run.kind,
      outcome: call.run.outcome,
      failed: call.outcome.status === "failed",
    });
  }
  return {
    errors: capped([...errors.values()], MAX_LEDGER_ERRORS, (error) => error.state === "fixed"),
    commands: capped([...commands.values()], MAX_LEDGER_COMMANDS, (command) => !command.failed),
  };
}

/** `into`'s outcomes then `from`'s: an entry in both takes `from`'s state, at `from`'s place. */
export function mergeOutcomeLists(into: Partial<Outcomes>, from: Partial<Outcomes>): Outcomes {
  const errors = new Map<string, LedgerError>();
  for (const error of [...(into.errors ?? []), ...(from.errors ?? [])]) {
    errors.delete(error.signature);
    errors.set(error.signature, error);
  }
  const commands = new Map<string, LedgerCommand>();
  for (const command of [...(into.commands ?? []), ...(from.commands ?? [])]) {
    commands.delete(command.step);
    commands.set(command.step, command);
  }
  return {
    errors: capped([...errors.values()], MAX_LEDGER_ERRORS, (error) => error.state === "fixed"),
    commands: capped([...commands.values()], MAX_LEDGER_COMMANDS, (command) => !command.failed),
  };
}
