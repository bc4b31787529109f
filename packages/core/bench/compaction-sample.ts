/**
 * One sample of `pnpm bench`'s compaction CPU row, run by bench.ts in a fresh
 * process so that the token cache has never seen the session: the CPU time of
 * one deterministic (tier 4) compaction of the session in SESSION_FILE, with
 * the store's token counts (`seeded`) or without them (`cold`). Prints one
 * JSON line.
 *
 *   node --import tsx bench/compaction-sample.ts cold|seeded SESSION_FILE
 */

import { readFileSync } from "node:fs";
import { compact } from "../src/compact/compact.js";
import type { ChatMessage } from "../src/messages/types.js";

const model = "gpt-4o";
const options = { contextWindow: 128_000, force: true };
/** Compactions of variants of the session before the sample, as a long-lived isolate has run. */
const WARM_UP_ROUNDS = 10;

const [mode, sessionFile] = process.argv.slice(2);
if ((mode !== "cold" && mode !== "seeded") || sessionFile === undefined) {
  throw new Error("usage: compaction-sample.ts cold|seeded SESSION_FILE");
}
const session = JSON.parse(readFileSync(sessionFile, "utf8")) as {
  messages: ChatMessage[];
  tokenCounts: number[];
};

/**
 * The session with every message changed a little (text prefixed, arguments padded), so that the
 * token cache counts it as new content: what warms the code paths without warming the cache for
 * the session measured.
 */
function variant(messages: readonly ChatMessage[], round: number): ChatMessage[] {
  const mark = `(warm-up ${round}) `;
  return structuredClone(messages).map((message) => {
    if (typeof message.content === "string") message.content = mark + message.content;
    else if (Array.isArray(message.content)) message.content.unshift({ type: "text", text: mark });
    for (const call of message.tool_calls ?? [])
      if (call.type === "function") call.function.arguments = `${call.function.arguments} `;
    return message;
  });
}

// Warm the code paths and the encoder on variants of the session, so that the sample measures one
// compaction as a long-lived isolate (a Durable Object) runs it, with a token cache that has never
// seen the session.
for (let round = 0; round < WARM_UP_ROUNDS; round++) {
  const messages = variant(session.messages, round);
  const tokenCounts = mode === "seeded" ? { tokenCounts: session.tokenCounts } : {};
  await compact({ model, messages, ...tokenCounts }, options);
}

const input =
  mode === "seeded"
    ? { model, messages: session.messages, tokenCounts: session.tokenCounts }
    : { model, messages: session.messages };
const start = process.cpuUsage();
const result = await compact(input, options);
const used = process.cpuUsage(start);
console.log(
  JSON.stringify({
    cpuMs: (used.user + used.system) / 1000,
    tier: result.tier,
    originalTokens: result.originalTokens,
    finalTokens: result.finalTokens,
  }),
);
