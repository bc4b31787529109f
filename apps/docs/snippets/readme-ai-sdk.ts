import { openai } from "@ai-sdk/openai";
import { Condense, condenseMiddleware } from "@condense/client";
import { wrapLanguageModel } from "ai";

const condense = new Condense({ baseUrl: "http://127.0.0.1:8787", apiKey: "<key>" });

// #region snippet
const model = wrapLanguageModel({
  model: openai("gpt-4o"),
  middleware: condenseMiddleware({ session: condense.session("run-44") }),
});

// #endregion

export { model };
