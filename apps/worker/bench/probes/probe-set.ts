/**
 * @module bench/probes/probe-set
 * The probes a checkpoint asks, built from the client's history up to it (deterministic): what an
 * agent must still know to continue (Factory's probe-based evaluation, made checkable by code).
 * - `file`: each file the agent modified, with how its last change changed it (a changed line or
 *   a definition it touches), not only the path;
 * - `error`: each distinct error signature a failed call's output named, and, once a later run of
 *   the same step succeeded, that it was fixed;
 * - `instruction`: each instruction of the user (its first 300 characters);
 * - `recent`: the tool results of the last three turns and the agent's newest stated intention;
 * - `command`: each test or build step the agent ran, with its latest outcome.
 * A probe is a check on the text of a context (`bench/probes/probe-check`) and the query a
 * recall search for it would send.
 */

import type { ChatMessage } from "@condense/core";
import { messageText } from "@condense/core";
import { type FileEdit, type ReadCall, readCalls } from "./call-reading.ts";

export const PROBE_KINDS = ["file", "error", "instruction", "recent", "command"] as const;
export type ProbeKind = (typeof PROBE_KINDS)[number];

/** What a context must hold for a probe to pass; text is compared with whitespace collapsed. */
export type Check =
  | { text: string }
  /** One line holds every one of `parts` and, when given, matches `pattern`. */
  | { line: string[]; pattern?: RegExp }
  /** The tool result of `callId` is there, whole (its first characters), not a placeholder. */
  | { output: string; prefix: string }
  | { all: Check[] }
  | { any: Check[] };

export interface Probe {
  kind: ProbeKind;
  /** Unique within a transcript's checkpoint. */
  key: string;
  check: Check;
  /** The words a recall search for it sends. */
  query: string;
}

const INSTRUCTION_CHARS = 300;
const NEEDLE_CHARS = 60;
const LINE_CHARS = 40;
/** The turns whose tool results a `recent` probe asks for. */
const RECENT_TURNS = 3;
/** A result shorter than this is not worth a probe (no policy removes it). */
const RECENT_MIN_CHARS = 200;

/**
 * `value` as the probes read text: Markdown quote marks (`> `) off the start of its lines (a
 * summary quoting the user reads as the words it quotes), whitespace collapsed, at most `max`
 * characters.
 */
export function flat(value: string, max = Number.POSITIVE_INFINITY): string {
  const collapsed = value
    .replace(/^[ \t]*(?:>[ \t]?)+/gm, "")
    .replace(/\s+/g, " ")
    .trim();
  return collapsed.length <= max ? collapsed : collapsed.slice(0, max).trimEnd();
}

function words(value: string, count = 10): string {
  return flat(value)
    .split(" ")
    .filter((word) => /[A-Za-z0-9]/.test(word))
    .slice(0, count)
    .join(" ");
}

/** Prefixes of user-role messages a harness wrote, not the user. */
const HARNESS =
  /^(?:<(?:system-reminder|local-command-\w+|task-notification|command-\w+|environment_context|user_instructions)>|Caveat: |\[Request interrupted|This session is being continued|Here is a demonstration|Base directory for this skill|<returncode>|<output>|OBSERVATION:|Please always provide EXACTLY ONE action|Tool call error)/;

/** The user's own instructions: user messages no harness wrote. */
function instructions(history: readonly ChatMessage[]): string[] {
  const found: string[] = [];
  for (const message of history) {
    if (message.role !== "user") continue;
    const body = messageText(message).trim();
    if (body.length < 4 || HARNESS.test(body)) continue;
    found.push(flat(body, INSTRUCTION_CHARS));
  }
  return [...new Set(found)];
}

function fileProbe(edit: FileEdit): Probe {
  const how: Check[] = [
    ...edit.symbols.slice(0, 3).map((symbol) => ({ text: symbol })),
    ...[edit.added[0], edit.removed[0]]
      .filter((line): line is string => line !== undefined && line.length >= 12)
      .map((line) => ({ text: flat(line, LINE_CHARS) })),
  ];
  const name = edit.path.split("/").at(-1) ?? edit.path;
  return {
    kind: "file",
    key: `file ${edit.path}`,
    check: how.length === 0 ? { text: edit.path } : { all: [{ text: edit.path }, { any: how }] },
    query: `${name} ${edit.symbols[0]?.split(" ")[1] ?? words(edit.added[0] ?? "", 5)}`.trim(),
  };
}

function outputCheck(call: ReadCall): Check {
  return { output: call.id, prefix: flat(call.result ?? "", 100) };
}

const FIXED = /\b(?:fixed|resolved|passes|passed|succeeded|no longer)\b/i;
const OK_OUTCOME = /\bok\b|\bexit 0\b|\bsucceeded\b|\bpass(?:ed|es)\b/i;
const FAILED_OUTCOME = /\bexit [1-9]\d*\b|\bfail(?:ed|s|ing|ure)?\b|\berrors?\b/i;

/** Every error signature and test or build step of `calls`, with their latest state. */
function errorAndCommandProbes(calls: readonly ReadCall[]): Probe[] {
  const probes: Probe[] = [];
  const seen = new Set<string>();
  calls.forEach((call, index) => {
    for (const signature of call.signatures) {
      const needle = flat(signature, NEEDLE_CHARS);
      if (seen.has(needle)) continue;
      seen.add(needle);
      const fix = calls
        .slice(index + 1)
        .find(
          (later) =>
            !later.failed && later.result !== undefined && later.resolution === call.resolution,
        );
      const named: Check = { text: needle };
      probes.push({
        kind: "error",
        key: `error ${needle}`,
        check:
          fix === undefined
            ? named
            : {
                all: [
                  named,
                  {
                    any: [
                      { line: [flat(signature, LINE_CHARS)], pattern: FIXED },
                      outputCheck(fix),
                    ],
                  },
                ],
              },
        query: words(signature),
      });
    }
  });
  const latest = new Map<string, ReadCall>();
  for (const call of calls)
    if (call.step !== undefined && call.result !== undefined) latest.set(call.step, call);
  for (const [step, call] of latest) {
    const outcome = call.failed ? FAILED_OUTCOME : OK_OUTCOME;
    probes.push({
      kind: "command",
      key: `command ${step}`,
      check: {
        all: [
          { text: flat(step, NEEDLE_CHARS) },
          { any: [outputCheck(call), { line: [flat(step, LINE_CHARS)], pattern: outcome }] },
        ],
      },
      query: words(step),
    });
  }
  return probes;
}

/** The newest tool results (of the last `RECENT_TURNS` turns that made calls) and intention. */
function recentProbes(history: readonly ChatMessage[], calls: readonly ReadCall[]): Probe[] {
  const probes: Probe[] = [];
  const turns = [...new Set(calls.map((call) => call.index))].slice(-RECENT_TURNS);
  for (const call of calls) {
    if (!turns.includes(call.index) || (call.result?.length ?? 0) < RECENT_MIN_CHARS) continue;
    probes.push({
      kind: "recent",
      key: `output ${call.id}`,
      check: outputCheck(call),
      query: call.id,
    });
  }
  const said = history.findLast(
    (message) => message.role === "assistant" && messageText(message).trim().length >= 20,
  );
  if (said !== undefined) {
    const intention = flat(messageText(said), 150);
    probes.push({
      kind: "recent",
      key: `intention ${intention}`,
      check: { text: intention },
      query: words(intention),
    });
  }
  return probes;
}

/** The probes of a checkpoint whose history is `history`. */
export function buildProbes(history: readonly ChatMessage[]): Probe[] {
  const calls = readCalls(history).filter((call) => call.result !== undefined);
  const lastEdit = new Map<string, FileEdit>();
  for (const call of calls) {
    if (call.failed && call.command === undefined) continue; // a failed edit tool changed nothing
    for (const edit of call.edits) if (edit.path !== "") lastEdit.set(edit.path, edit);
  }
  return [
    ...[...lastEdit.values()].map(fileProbe),
    ...errorAndCommandProbes(calls),
    ...instructions(history).map(
      (instruction): Probe => ({
        kind: "instruction",
        key: `instruction ${instruction}`,
        check: { text: instruction },
        query: words(instruction),
      }),
    ),
    ...recentProbes(history, calls),
  ];
}
