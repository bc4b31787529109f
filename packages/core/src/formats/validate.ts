/**
 * @module formats/validate
 * Checks that canonical messages form a conversation a provider accepts: tool
 * calls and their results in the right places, turn order, no empty content.
 * Each provider's rules live with it (OpenAI's and Gemini's in `messages/`,
 * Anthropic's beside its format); this picks them. Shape (types, roles) is
 * `parseMessages`' job; this checks structure. An empty list has no structure
 * problems (`parseMessages` rejects it).
 */

import type { MessageProblem } from "../errors/condense-error.js";
import { validateGemini } from "../messages/gemini-rules.js";
import { validateOpenAI } from "../messages/openai-rules.js";
import type { ChatMessage, Provider } from "../messages/types.js";
import { validateAnthropic } from "./anthropic/rules.js";

export interface ValidationResult {
  ok: boolean;
  problems: MessageProblem[];
}

/** Checks `messages` against the rules of `provider`; `ok` is true when there is no problem. */
export function validateMessages(
  messages: readonly ChatMessage[],
  provider: Provider,
): ValidationResult {
  let problems: MessageProblem[];
  switch (provider) {
    case "openai":
      problems = validateOpenAI(messages);
      break;
    case "anthropic":
      problems = validateAnthropic(messages);
      break;
    case "gemini":
      problems = validateGemini(messages);
      break;
    default:
      problems = [
        {
          index: -1,
          path: "",
          kind: "unknown_provider",
          message: `provider ${JSON.stringify(String(provider))} is not supported; use openai, anthropic or gemini`,
        },
      ];
  }
  return { ok: problems.length === 0, problems };
}
