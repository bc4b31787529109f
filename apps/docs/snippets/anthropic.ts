// #region snippet
import Anthropic from "@anthropic-ai/sdk";
import { Condense, withCompaction } from "@condense/client";

const condense = new Condense({
  baseUrl: "http://127.0.0.1:8787",
  apiKey: process.env.CONDENSE_API_KEY ?? "",
});
const claude = withCompaction(new Anthropic(), { session: condense.session("run-43") });

const message = await claude.messages.create({
  model: "claude-sonnet-4-6",
  max_tokens: 1024,
  system: "You are a coding agent.",
  messages: [{ role: "user", content: "Next step?" }],
});
// After a tool_use answer, send only the tool results:
const toolUse = message.content.find((block) => block.type === "tool_use");
const next = await claude.messages
  .stream({
    model: "claude-sonnet-4-6",
    max_tokens: 1024,
    system: "You are a coding agent.",
    messages: toolUse
      ? [
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: toolUse.id, content: "…" }],
          },
        ]
      : [{ role: "user", content: "Go on." }],
  })
  .finalMessage();

// #endregion

// What the example leaves for the code after it.
export { next };
