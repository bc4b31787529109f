// #region snippet

import { Condense, withCompaction } from "@condense/client";
import OpenAI from "openai";

const condense = new Condense({ baseUrl: "http://127.0.0.1:8787", apiKey: "<key>" });
const ai = withCompaction(new OpenAI(), { session: condense.session("run-42") });
const reply = await ai.chat.completions.create({
  model: "gpt-4o",
  messages: [{ role: "user", content: "Next step?" }],
});

// #endregion

export { reply };
