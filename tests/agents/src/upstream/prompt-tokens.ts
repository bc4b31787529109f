/**
 * @module upstream/prompt-tokens
 * How many tokens the scripted upstream says a prompt has: the engine's exact
 * count (`@condense/core`, o200k) of the parts a provider bills as prompt —
 * system, tool definitions and conversation — as the JSON they were sent in.
 * Not any provider's exact figure (none can be had offline), but of the same
 * size, and counting the tools the way providers do.
 */

import { countTokens } from "@condense/core";

export function promptTokens(prompt: unknown): number {
  return countTokens(JSON.stringify(prompt), "gpt-4o");
}
