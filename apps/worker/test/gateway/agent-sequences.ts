/**
 * @module test/gateway/agent-sequences
 * The request sequences of real agents, main conversation and side requests
 * interleaved as they arrive at the gateway, in each agent's own request
 * shape. opencode's are captured from a real run (`fixtures/agents`): its
 * title request comes first. Claude Code's side requests (a quota check
 * first, a topic check, a sub-agent beside its main conversation) are written
 * from what issue 18 observed, trimmed to short prompts and few tools: the
 * captured run of Claude Code 2.1.332 sent none.
 */

import type { AgentRequest } from "./agent-requests";
import openCodeRun from "./fixtures/agents/opencode.json";

// ------------------------------------------------------------------ opencode (Chat Completions)

/** A captured run's requests, trimmed (`fixtures/agents/README.md`). */
interface CapturedRun {
  source: string;
  trimmed: string;
  route: string;
  requests: AgentRequest[];
}

const openCode = openCodeRun as CapturedRun;

function captured(label: string): AgentRequest {
  const request = openCode.requests.find((candidate) => candidate.label === label);
  if (request === undefined) throw new Error(`no request ${label} in the opencode fixture`);
  return request;
}

/** opencode as it arrived: its title request first, then three turns of the main conversation. */
export const openCodeTitleFirst: AgentRequest[] = openCode.requests;

/** The same, when the first main request overtakes the title request. */
export const openCodeMainFirst: AgentRequest[] = [
  captured("turn 1"),
  captured("title"),
  captured("turn 2"),
  captured("turn 3"),
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
