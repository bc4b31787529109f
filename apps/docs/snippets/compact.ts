import type { ChatMessage } from "@condense/core";

declare let messages: ChatMessage[];

// #region snippet
import { compact } from "@condense/core";

const result = await compact({ model: "gpt-4o", messages }, { contextWindow: 64_000 });
if (result.compacted) messages = result.messages;
// #endregion
