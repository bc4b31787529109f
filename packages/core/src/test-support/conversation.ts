/**
 * @module test-support/conversation
 * Builders and fast-check arbitraries for conversations, shared by tests.
 * Not part of the published package.
 */

import fc from "fast-check";
import type { ChatMessage, ToolCall } from "../messages/types.js";

export const system = (content: string): ChatMessage => ({ role: "system", content });
export const user = (content: string): ChatMessage => ({ role: "user", content });
export const assistant = (content: string | null, calls: ToolCall[] = []): ChatMessage =>
  calls.length === 0
    ? { role: "assistant", content }
    : { role: "assistant", content, tool_calls: calls };
/** A tool call; `args` as an object is sent as JSON, as a string verbatim (e.g. malformed JSON). */
export const call = (
  id: string,
  name: string,
  args: Record<string, unknown> | string,
): ToolCall => ({
  id,
  type: "function",
  function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
});

/** A custom tool call (free-form input), as Codex's `apply_patch` makes. */
export const customCall = (id: string, name: string, input: string): ToolCall => ({
  id,
  type: "custom",
  custom: { name, input },
});
export const result = (toolCallId: string, content: string): ChatMessage => ({
  role: "tool",
  tool_call_id: toolCallId,
  content,
});

/** A long, realistic tool output: `lines` numbered lines of a file listing. */
export function bulkyOutput(lines: number, seed = "out"): string {
  return Array.from(
    { length: lines },
    (_, i) => `${seed} ${i}: def function_${i}(value): return value * ${i} + offset`,
  ).join("\n");
}

/**
 * An agent-style session: a system prompt, a task, then `turns` rounds of
 * assistant tool calls with bulky results, with a user message every few turns.
 */
export function agentSession(turns: number, outputLines = 60): ChatMessage[] {
  const messages: ChatMessage[] = [
    system("You are a coding agent. Use the tools to fix the bug."),
    user(
      "Fix the failing test in src/app/server.ts; the CI run 4f9c2ab1 shows a timeout on localhost:8787.",
    ),
  ];
  for (let turn = 0; turn < turns; turn++) {
    const id = `call_${turn.toString().padStart(4, "0")}`;
    messages.push(
      assistant(`Step ${turn}: reading src/module_${turn}.ts`, [
        call(id, "read_file", { path: `src/module_${turn}.ts` }),
      ]),
    );
    messages.push(result(id, bulkyOutput(outputLines, `module_${turn}`)));
    if (turn % 7 === 6)
      messages.push(
        assistant(`Checkpoint ${turn}: the handler in src/module_${turn}.ts looks fine.`),
      );
    if (turn % 7 === 6) messages.push(user(`Keep going, and check src/extra_${turn}.ts too.`));
  }
  return messages;
}

const text = fc.oneof(
  { weight: 5, arbitrary: fc.string({ maxLength: 60 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constant("") },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 50, max: 400 }).map((lines) => bulkyOutput(lines, "bulk")),
  },
  {
    weight: 1,
    arbitrary: fc.uuid().map((id) => `see /srv/app/${id}.log and https://example.com/runs/${id}`),
  },
);

/** Text of a user or assistant turn: never blank (a blank turn is an aborted one, not a valid one). */
const turnText = text.map((value) => (value.trim() === "" ? "ok" : value));

/**
 * Valid conversations: optional system prompt, user first, then turns of
 * plain replies or parallel tool calls each answered by its result. With
 * `idsPerTurn`, calls are numbered afresh every turn (`call_0`…), as some
 * servers do, so ids come back once answered.
 */
export const arbConversation = (maxTurns = 30, idsPerTurn = false): fc.Arbitrary<ChatMessage[]> =>
  fc
    .record({
      withSystem: fc.boolean(),
      first: turnText,
      turns: fc.array(
        fc.oneof(
          fc.record({ kind: fc.constant("reply" as const), reply: turnText, next: turnText }),
          fc.record({
            kind: fc.constant("tools" as const),
            say: fc.option(text, { nil: null }),
            outputs: fc.array(text, { minLength: 1, maxLength: 4 }),
          }),
        ),
        { maxLength: maxTurns },
      ),
    })
    .map(({ withSystem, first, turns }) => {
      const messages: ChatMessage[] = withSystem ? [system("You are an agent.")] : [];
      messages.push(user(first));
      let counter = 0;
      for (const turn of turns) {
        if (turn.kind === "reply") {
          messages.push(assistant(turn.reply), user(turn.next));
          continue;
        }
        if (idsPerTurn) counter = 0;
        const ids = turn.outputs.map(() => `call_${counter++}`);
        messages.push(
          assistant(
            turn.say,
            ids.map((id, i) =>
              i % 3 === 2
                ? customCall(
                    id,
                    "apply_patch",
                    `*** Begin Patch\n*** Update File: file_${id}.py\n*** End Patch`,
                  )
                : call(id, i % 2 === 0 ? "bash" : "read_file", { command: `cat file_${id}.py` }),
            ),
          ),
        );
        turn.outputs.forEach((output, i) => {
          messages.push(result(ids[i] ?? "", output));
        });
      }
      return messages;
    });

const word = fc.constantFrom("parser", "billing", "auth", "render", "queue", "cache", "store");
const hash = fc
  .string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 6, maxLength: 39 })
  .map((hex) => `${hex}a7`);
const path = fc
  .record({
    root: fc.constantFrom("src", "lib", "tests", "/srv/app", "./scripts"),
    name: word,
    n: fc.nat({ max: 99 }),
    ext: fc.constantFrom("ts", "py", "ex", "go", "json"),
  })
  .map(({ root, name, n, ext }) => `${root}/${name}_${n}.${ext}`);
const url = fc
  .record({ name: word, id: fc.uuid() })
  .map(({ name, id }) => `https://ci.example.com/${name}/runs/${id}`);
/** An identifier the ledger must keep: a UUID, a commit hash, a URL or a file path. */
export const arbLedgerIdentifier = fc.oneof(fc.uuid(), hash, url, path);

/**
 * Agent sessions rich in identifiers: user requests and assistant text naming
 * UUIDs, hashes, URLs and paths, and edits, writes and shell commands on
 * files, each answered by an output of some size.
 */
export const arbIdentifierSession: fc.Arbitrary<ChatMessage[]> = fc
  .record({
    task: fc.array(arbLedgerIdentifier, { minLength: 1, maxLength: 4 }),
    turns: fc.array(
      fc.record({
        say: fc.option(fc.array(arbLedgerIdentifier, { maxLength: 3 }), { nil: null }),
        tool: fc.constantFrom("Edit", "Write", "bash", "Read"),
        file: path,
        ids: fc.array(arbLedgerIdentifier, { maxLength: 3 }),
        lines: fc.integer({ min: 0, max: 120 }),
        ask: fc.option(fc.array(arbLedgerIdentifier, { maxLength: 2 }), { nil: null }),
      }),
      { minLength: 1, maxLength: 40 },
    ),
  })
  .map(({ task, turns }) => {
    const messages: ChatMessage[] = [
      system("You are a coding agent."),
      user(`Fix the failure in ${task.join(" and ")} please.`),
    ];
    turns.forEach((turn, i) => {
      const id = `toolu_${i.toString().padStart(4, "0")}x`;
      const named = turn.ids.join(" ");
      const args =
        turn.tool === "Edit"
          ? { file_path: turn.file, old_string: "return 1", new_string: `return 2 # ${named}` }
          : turn.tool === "Write"
            ? { file_path: turn.file, content: `def run():\n    see(${JSON.stringify(named)})\n` }
            : turn.tool === "bash"
              ? { command: `cd /srv/app && pytest ${turn.file} ${named}` }
              : { file_path: turn.file };
      const say = turn.say === null ? null : `Checking ${turn.say.join(", ")} next.`;
      messages.push(assistant(say, [call(id, turn.tool, args)]));
      messages.push(result(id, turn.lines === 0 ? "ok" : bulkyOutput(turn.lines, `t${i}`)));
      if (turn.ask !== null) {
        messages.push(assistant("Done with this step."));
        messages.push(user(`Also look at ${turn.ask.join(" ")}.`));
      }
    });
    return messages;
  });
