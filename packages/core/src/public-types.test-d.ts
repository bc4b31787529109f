/**
 * The public surface's types: `compact()`'s overloads give OpenAI-format callers `ChatMessage`s back
 * and every other format `unknown` ones; its options are all optional, their closed sets unions.
 * Checked by tsc, as tests in vitest's typecheck mode (`pnpm test:fast`) and by the package's type
 * check (`pnpm typecheck`, in `pnpm test`). The calls are wrapped in functions that never run, so
 * nothing is compacted here.
 */

import { describe, expectTypeOf, it } from "vitest";
import {
  type ChatMessage,
  type CompactInput,
  type CompactOptions,
  type CompactResult,
  compact,
} from "./index.js";

describe("compact()'s types", () => {
  it("answers Chat Completions input with ChatMessage results", () => {
    const implicit = () => compact({ model: "gpt-4o", messages: [] });
    const explicit = () => compact({ model: "gpt-4o", messages: [], format: "openai" });
    expectTypeOf(implicit).returns.resolves.toEqualTypeOf<CompactResult<ChatMessage>>();
    expectTypeOf(explicit).returns.resolves.toEqualTypeOf<CompactResult<ChatMessage>>();
  });

  it("answers another format's input with messages of unknown shape", () => {
    const anthropic = () =>
      compact({ model: "claude-sonnet-4", messages: [], format: "anthropic" });
    const input: CompactInput = { model: "gpt-4o", messages: [] };
    const widened = () => compact(input);
    const responses = () => compact({ model: "gpt-5", messages: [], format: "responses" });
    expectTypeOf(anthropic).returns.resolves.toEqualTypeOf<CompactResult<unknown>>();
    expectTypeOf(responses).returns.resolves.toEqualTypeOf<CompactResult<unknown>>();
    expectTypeOf(widened).returns.resolves.toEqualTypeOf<CompactResult<unknown>>();
  });

  it("takes its options second, all of them optional", () => {
    expectTypeOf(compact).parameter(1).toEqualTypeOf<CompactOptions | undefined>();
    expectTypeOf<Record<string, never>>().toExtend<CompactOptions>();
    // @ts-expect-error: a model is required
    expectTypeOf<{ messages: [] }>().toExtend<CompactInput>();
  });

  it("names its closed sets as unions, not strings", () => {
    expectTypeOf<CompactOptions["policy"]>().toEqualTypeOf<"cost" | "window" | undefined>();
    expectTypeOf<CompactInput["format"]>().toEqualTypeOf<
      "openai" | "anthropic" | "responses" | "gemini" | undefined
    >();
    // @ts-expect-error: no such policy
    expectTypeOf<{ policy: "eager" }>().toExtend<CompactOptions>();
  });
});
