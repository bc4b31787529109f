/**
 * @module test/agent-sequences
 * The request sequences of real agents, main conversation and side requests
 * interleaved as they arrive at the gateway, in each agent's own request shape
 * (trimmed: short prompts, few tools). Written from the agents' observed
 * behaviour (issue 18): opencode asks for a title first, Claude Code checks
 * its quota first and asks a small model for a topic and runs sub-agents
 * beside its main conversation.
 */

import type { AgentRequest } from "./agent-requests";

// ------------------------------------------------------------------ opencode (Chat Completions)

const OPENCODE_HEADER =
  "You are opencode, an interactive CLI tool that helps users with software engineering tasks.";
const OPENCODE_PROMPT =
  "Use the tools available to you to assist the user.\n<env>\nWorking directory: /repo\nPlatform: linux\n</env>";
const OPENCODE_TITLE_PROMPT =
  "You are a title generator. You output ONLY a thread title, nothing else. The title is at most 50 characters.";
const OPENCODE_SUMMARY_PROMPT =
  "Summarize what was done in this conversation in two sentences, for the session list.";

const openCodeTools = ["read", "bash", "edit"].map((name) => ({
  type: "function",
  function: {
    name,
    description: `The ${name} tool.`,
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
}));

const TASK = "Fix the flaky login test in test/login.test.ts.";

const openCodeTitle: AgentRequest = {
  kind: "side",
  label: "title",
  body: {
    model: "gpt-4o-mini",
    max_tokens: 1500,
    messages: [
      { role: "system", content: OPENCODE_TITLE_PROMPT },
      { role: "user", content: "Generate a title for this conversation:\n" },
      { role: "user", content: TASK },
    ],
  },
};

const mainHistory1 = [
  { role: "system", content: OPENCODE_HEADER },
  { role: "system", content: OPENCODE_PROMPT },
  { role: "user", content: TASK },
];
const readCall = {
  role: "assistant",
  content: "I'll read the test first.",
  tool_calls: [
    {
      id: "call_read_1",
      type: "function",
      function: { name: "read", arguments: '{"path":"test/login.test.ts"}' },
    },
  ],
};
const mainHistory2 = [
  ...mainHistory1,
  readCall,
  {
    role: "tool",
    tool_call_id: "call_read_1",
    content:
      "import { login } from '../src/login';\ntest('logs in', async () => { await login(); });",
  },
];
const fixed = { role: "assistant", content: "The test did not await the session; fixed." };
const mainHistory3 = [...mainHistory2, fixed, { role: "user", content: "Now run the tests." }];

const openCodeMain = (messages: unknown[], answer?: Record<string, unknown>): AgentRequest => ({
  kind: "main",
  label: "main",
  body: { model: "gpt-4o", messages, tools: openCodeTools, tool_choice: "auto", stream: true },
  ...(answer !== undefined ? { answer } : {}),
});

/** opencode's session summary: the conversation so far under another prompt, no tools. */
const openCodeSummary: AgentRequest = {
  kind: "side",
  label: "summary",
  body: {
    model: "gpt-4o-mini",
    messages: [
      { role: "system", content: OPENCODE_SUMMARY_PROMPT },
      ...mainHistory2.slice(2),
      fixed,
      { role: "user", content: "Summarize the conversation above." },
    ],
  },
};

/** opencode as it arrives: the title request first, then the main conversation, a summary beside it. */
export const openCodeTitleFirst: AgentRequest[] = [
  openCodeTitle,
  openCodeMain(mainHistory1, readCall),
  openCodeMain(mainHistory2, fixed),
  openCodeSummary,
  openCodeMain(mainHistory3, { role: "assistant", content: "All tests pass." }),
];

/** The same, when the main request overtakes the title request. */
export const openCodeMainFirst: AgentRequest[] = [
  openCodeMain(mainHistory1, readCall),
  openCodeTitle,
  openCodeMain(mainHistory2, fixed),
  openCodeMain(mainHistory3, { role: "assistant", content: "All tests pass." }),
];

// ------------------------------------------------------------------ Claude Code (Anthropic Messages)

const IDENTITY = {
  type: "text",
  text: "You are Claude Code, Anthropic's official CLI for Claude.",
  cache_control: { type: "ephemeral" },
};
const CLAUDE_PROMPT = {
  type: "text",
  text: "You are an interactive CLI tool that helps users with software engineering tasks.",
  cache_control: { type: "ephemeral" },
};
const SUBAGENT_PROMPT = {
  type: "text",
  text: "You are an agent for Claude Code. Given the user's message, use the tools available to complete the task. Report back with a concise answer.",
};

const tool = (name: string) => ({
  name,
  description: `The ${name} tool.`,
  input_schema: { type: "object", properties: { file_path: { type: "string" } } },
});
const claudeTools = ["Task", "Read", "Bash", "Edit"].map(tool);

const quota: AgentRequest = {
  kind: "side",
  label: "quota",
  body: {
    model: "claude-haiku-4-5",
    max_tokens: 1,
    messages: [{ role: "user", content: "quota" }],
    metadata: { user_id: "user_1" },
  },
};

const ASK = "Find why the importer drops rows with a trailing comma, and fix it.";
const claudeUser = {
  role: "user",
  content: [
    {
      type: "text",
      text: "<system-reminder>\nAs you answer, use the context below.\n</system-reminder>",
    },
    { type: "text", text: ASK },
  ],
};
const taskCall = {
  role: "assistant",
  content: "I'll have a sub-agent find where rows are parsed.",
  tool_calls: [
    {
      id: "toolu_task_1",
      type: "function",
      function: { name: "Task", arguments: '{"prompt":"Find where CSV rows are parsed."}' },
    },
  ],
};

const claudeMain = (messages: unknown[], answer?: Record<string, unknown>): AgentRequest => ({
  kind: "main",
  label: "main",
  body: {
    model: "claude-sonnet-4-5",
    max_tokens: 32_000,
    system: [IDENTITY, CLAUDE_PROMPT],
    messages,
    tools: claudeTools,
    stream: true,
    metadata: { user_id: "user_1" },
  },
  ...(answer !== undefined ? { answer } : {}),
});

const topic: AgentRequest = {
  kind: "side",
  label: "topic",
  body: {
    model: "claude-haiku-4-5",
    max_tokens: 512,
    system: [
      {
        type: "text",
        text: "Analyze if this message indicates a new conversation topic. Answer with JSON: isNewTopic, title.",
      },
    ],
    messages: [{ role: "user", content: ASK }],
    stream: true,
  },
};

const subAgentHistory = [{ role: "user", content: "Find where CSV rows are parsed." }];
const subAgent = (messages: unknown[]): AgentRequest => ({
  kind: "side",
  label: "sub-agent",
  body: {
    model: "claude-sonnet-4-5",
    max_tokens: 32_000,
    system: [IDENTITY, SUBAGENT_PROMPT],
    messages,
    tools: ["Read", "Bash"].map(tool),
    stream: true,
  },
});

/** Claude Code: a quota check first, a topic check and a sub-agent beside the main conversation. */
export const claudeCodeSequence: AgentRequest[] = [
  quota,
  claudeMain([claudeUser], taskCall),
  topic,
  subAgent(subAgentHistory),
  subAgent([
    ...subAgentHistory,
    {
      role: "assistant",
      content: [
        { type: "tool_use", id: "toolu_sub_1", name: "Read", input: { file_path: "src/csv.ts" } },
      ],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_sub_1",
          content: "export function parseRow() {}",
        },
      ],
    },
  ]),
  claudeMain(
    [
      claudeUser,
      {
        role: "assistant",
        content: [
          { type: "text", text: "I'll have a sub-agent find where rows are parsed." },
          {
            type: "tool_use",
            id: "toolu_task_1",
            name: "Task",
            input: { prompt: "Find where CSV rows are parsed." },
          },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_task_1",
            content: [{ type: "text", text: "Rows are parsed in src/csv.ts, parseRow." }],
          },
        ],
      },
    ],
    { role: "assistant", content: "Fixed parseRow to keep the empty last field." },
  ),
];
