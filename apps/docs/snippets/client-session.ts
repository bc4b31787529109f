// #region snippet
import { Condense } from "@condense/client";

const condense = new Condense({
  baseUrl: "http://127.0.0.1:8787",
  apiKey: "<key from `pnpm start`>",
});
const session = condense.session("run-42");
await session.append([{ role: "user", content: "Fix the failing test in src/app.ts" }]);
const { messages, tokens } = await session.context(); // send `messages` to your model, then append its answer

// #endregion

// What the example leaves for the code after it.
export { messages, tokens };
