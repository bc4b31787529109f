/**
 * The public surface's types: `withCompaction` keeps the SDK client's own type beside the compacting
 * methods, `condenseMiddleware` is an AI SDK middleware, both need the session, and `Condense`'s
 * options need only where and who. Checked by tsc, as tests in vitest's typecheck mode
 * (`pnpm test:fast`) and by the package's type check (`pnpm typecheck`, in `pnpm test`). Nothing
 * here calls a service.
 */

import type { LanguageModelV4Middleware } from "@ai-sdk/provider";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { describe, expectTypeOf, it } from "vitest";
import {
  type CompactingAnthropic,
  type CompactingOpenAI,
  Condense,
  type CondenseMiddlewareOptions,
  type CondenseOptions,
  condenseMiddleware,
  type SessionHandle,
  type WithCompactionOptions,
  withCompaction,
} from "./index.js";

describe("the client's public types", () => {
  it("withCompaction answers an OpenAI client with a compacting OpenAI client", () => {
    const wrap = (client: OpenAI, options: WithCompactionOptions) =>
      withCompaction(client, options);
    expectTypeOf(wrap).returns.toEqualTypeOf<CompactingOpenAI<OpenAI>>();
    expectTypeOf<CompactingOpenAI<OpenAI>["models"]>().toEqualTypeOf<OpenAI["models"]>();
  });

  it("withCompaction answers an Anthropic client with a compacting Anthropic client", () => {
    const wrap = (client: Anthropic, options: WithCompactionOptions) =>
      withCompaction(client, options);
    expectTypeOf(wrap).returns.toEqualTypeOf<CompactingAnthropic<Anthropic>>();
    expectTypeOf<CompactingAnthropic<Anthropic>["models"]>().toEqualTypeOf<Anthropic["models"]>();
  });

  it("withCompaction refuses what is neither SDK's client", () => {
    const wrap = (client: { chat: object }, options: WithCompactionOptions) =>
      // @ts-expect-error: neither an OpenAI nor an Anthropic client
      withCompaction(client, options);
    expectTypeOf(wrap).toBeFunction();
  });

  it("withCompaction needs the session; the rest of its options are optional", () => {
    expectTypeOf<{ session: SessionHandle }>().toExtend<WithCompactionOptions>();
    // @ts-expect-error: the session is required
    expectTypeOf<{ model: string }>().toExtend<WithCompactionOptions>();
  });

  it("condenseMiddleware is an AI SDK language model middleware", () => {
    expectTypeOf(condenseMiddleware).parameter(0).toEqualTypeOf<CondenseMiddlewareOptions>();
    expectTypeOf(condenseMiddleware).returns.toEqualTypeOf<LanguageModelV4Middleware>();
    expectTypeOf<{ session: SessionHandle }>().toExtend<CondenseMiddlewareOptions>();
    // @ts-expect-error: the session is required
    expectTypeOf<{ maxRecoveries: number }>().toExtend<CondenseMiddlewareOptions>();
  });

  it("Condense needs a base URL and a key; the rest has defaults", () => {
    expectTypeOf(Condense).constructorParameters.toEqualTypeOf<[CondenseOptions]>();
    expectTypeOf<{ baseUrl: string; apiKey: string }>().toExtend<CondenseOptions>();
    // @ts-expect-error: the key is required
    expectTypeOf<{ baseUrl: string }>().toExtend<CondenseOptions>();
  });
});
