/**
 * @module harness/task-run
 * One agent on the scripted task, straight at the scripted upstream or
 * through the gateway: registers the run with the upstream (its model, limit
 * and key), starts the CLI, and gathers what the report needs — the run's
 * figures (`harness/run-figures`), whether the task finished (the model
 * reached its last step and the report is in the workspace), and, through the
 * gateway, the session's compactions.
 */

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scenarioBaseUrl } from "@condense/test-servers";
import { type ModelFailure, scriptedModel } from "../model/scripted-model.ts";
import { buildTask, prepareWorkspace } from "../model/task.ts";
import { anthropicMessages } from "../upstream/anthropic-messages.ts";
import { chatCompletions } from "../upstream/chat-completions.ts";
import { geminiGenerateContent } from "../upstream/gemini-generate-content.ts";
import { openaiResponses } from "../upstream/openai-responses.ts";
import type { RecordedCall, ScriptedUpstream } from "../upstream/scripted-upstream.ts";
import type { AgentProtocol, ProtocolName } from "../upstream/wire.ts";
import type { AgentSetup } from "./agent-setups.ts";
import { type AgentOutcome, makeRunDirs, runAgent } from "./run-agent.ts";
import { type RunFigures, runFigures } from "./run-figures.ts";

export const PROTOCOLS: Record<ProtocolName, AgentProtocol> = {
  anthropic: anthropicMessages,
  responses: openaiResponses,
  chat: chatCompletions,
  gemini: geminiGenerateContent,
};

export interface GatewayRoute {
  /** The gateway's origin (`wrangler dev`). */
  origin: string;
  /** The gateway's upstream name that leads to this run (`/v1/gateway/<upstream>`). */
  upstream: string;
  /** The Condense API key of the gateway's local user (`GATEWAY_LOCAL_USER`), to read its sessions. */
  apiKey: string;
  /**
   * The agent's own provider key, as a user's shell holds it: the local gateway does not read it as
   * a Condense key, and sends the deployment's key for the upstream (the same one here).
   */
  upstreamKey: string;
  /** `X-Condense-Context-Window`. */
  contextWindow: string;
}

export interface TaskRunOptions {
  setup: AgentSetup;
  upstream: ScriptedUpstream;
  /** The run's name: its path segment on the upstream (and, through the gateway, in its URL there). */
  name: string;
  /** The upstream's limit in prompt tokens. */
  limit: number;
  gateway?: GatewayRoute;
  timeoutMs: number;
  /** A directory to save the run's requests and the CLI's output in (captures for fixtures). */
  saveTo?: string;
}

export interface TaskRunReport extends RunFigures {
  agent: string;
  route: "direct" | "gateway";
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** The model reached the task's last step and the report file holds its marker. */
  finished: boolean;
  /** The task's last step the model answered. */
  lastStep: number;
  limit: number;
  session?: string;
  /** The field that named the session (`X-Condense-Session-Source`): the agent's own, or the header. */
  identity?: string;
  /** Sessions the run created (one, when every request of the agent is named alike). */
  sessions?: number;
  compactions?: number;
  /** The last lines the CLI printed (for failure messages). */
  tail: string;
  /** The last error the CLI reported (a line of its output that mentions one), if any. */
  cliError?: string;
  failures: ModelFailure[];
}

const DIRECT_KEY = "sk-e2e-provider-key";

/** The base URL the gateway's configuration gives upstream `name` leading to run `run`. */
export function gatewayUpstreamBase(
  setup: AgentSetup,
  upstream: ScriptedUpstream,
  run: string,
): string {
  return setup.baseUrl(scenarioBaseUrl(upstream.origin, { name: run }));
}

interface ListedSession {
  id: string;
  compactions: number;
}

/** The local user's sessions (the newest 100). */
async function sessionsOf(gateway: GatewayRoute): Promise<ListedSession[]> {
  const response = await fetch(`${gateway.origin}/v1/sessions?limit=100`, {
    headers: { authorization: `Bearer ${gateway.apiKey}` },
  });
  if (!response.ok) throw new Error(`sessions: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { sessions: ListedSession[] }).sessions;
}

/**
 * A session's compactions, read from the session itself: the listing's count is reported to the
 * user's index after the fact, so on a fast machine it can lag the compactions a run just served.
 */
async function compactionsOf(gateway: GatewayRoute, session: string): Promise<number> {
  const response = await fetch(
    `${gateway.origin}/v1/sessions/${encodeURIComponent(session)}/compactions`,
    { headers: { authorization: `Bearer ${gateway.apiKey}` } },
  );
  if (!response.ok) {
    throw new Error(`compactions of ${session}: ${response.status} ${await response.text()}`);
  }
  const body = (await response.json()) as { compactions?: unknown[] };
  return Array.isArray(body.compactions) ? body.compactions.length : 0;
}

function save(
  dir: string,
  calls: RecordedCall[],
  outcome: { stdout: string; stderr: string },
): void {
  mkdirSync(dir, { recursive: true });
  calls.forEach((call, index) => {
    writeFileSync(
      join(
        dir,
        `${String(index + 1).padStart(3, "0")}-${call.side ? "side" : "turn"}-${call.status}.json`,
      ),
      JSON.stringify(call, null, 1),
    );
  });
  writeFileSync(join(dir, "cli-stdout.jsonl"), outcome.stdout);
  writeFileSync(join(dir, "cli-stderr.txt"), outcome.stderr);
}

/** The headers an agent may name its session in, in the order the gateway reads them. */
const IDENTITY_HEADERS = [
  "x-claude-code-session-id",
  "session-id",
  "session_id",
  "thread-id",
  "x-session-id",
  "x-session-affinity",
];

/**
 * Which field of the agent's requests holds the value its session is named by (`<family>:<value>`):
 * a header the gateway forwarded, or a body field, in the gateway's order. Read from what the
 * upstream received, so it checks the gateway's choice against what the agent actually sent.
 */
function identityField(calls: readonly RecordedCall[], session: string): string | undefined {
  const value = session.slice(session.indexOf(":") + 1);
  for (const call of calls) {
    const header = IDENTITY_HEADERS.find((name) => call.headers[name] === value);
    if (header !== undefined) return header;
    const body = call.body ?? {};
    const metadata = body.metadata;
    if (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata)) {
      const userId = (metadata as Record<string, unknown>).user_id;
      if (typeof userId === "string" && userId.includes(value)) return "metadata.user_id";
    }
    if (body.prompt_cache_key === value) return "prompt_cache_key";
  }
  return undefined;
}

/** An error's text inside a CLI's JSON event: pi's `errorMessage`, an `error`, Claude Code's `result`. */
function errorIn(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const item of [...value].reverse()) {
      const found = errorIn(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const event = value as Record<string, unknown>;
  if (typeof event.errorMessage === "string") return event.errorMessage;
  if (event.error !== undefined && event.error !== null) {
    return typeof event.error === "string" ? event.error : JSON.stringify(event.error);
  }
  if (event.is_error === true && typeof event.result === "string") return event.result;
  for (const item of Object.values(event)) {
    const found = errorIn(item);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The last error the CLI reported: from its JSON events, else the last line that mentions one. */
function lastError(stdout: string, stderr: string): string | undefined {
  const lines = [...stdout.split("\n"), ...stderr.split("\n")].filter((line) =>
    /error|failed|refused/i.test(line),
  );
  const line = lines.at(-1);
  if (line === undefined) return undefined;
  try {
    return (errorIn(JSON.parse(line)) ?? line).slice(0, 600);
  } catch {
    return line.slice(0, 600);
  }
}

export async function runTask(options: TaskRunOptions): Promise<TaskRunReport> {
  const { setup, upstream, gateway } = options;
  const protocol = PROTOCOLS[setup.protocol];
  const runId = options.name.replace(/[^A-Za-z0-9]/g, "").slice(0, 24);
  const task = buildTask(runId);
  const dirs = makeRunDirs(setup.name);
  prepareWorkspace(dirs.workspace, runId);
  const model = scriptedModel({ agent: setup.dialect, task, workspace: dirs.workspace });
  const runBase = upstream.register({
    scenario: { name: options.name, limit: options.limit },
    protocol,
    model,
    key: gateway?.upstreamKey ?? DIRECT_KEY,
  });
  // Through the gateway, a session header only for an agent that names no session of its own.
  const named =
    gateway === undefined || setup.identifies ? undefined : `${options.name}-${Date.now()}`;
  const headers: Record<string, string> =
    gateway === undefined
      ? {}
      : {
          "X-Condense-Context-Window": gateway.contextWindow,
          ...(named === undefined ? {} : { "X-Condense-Session": named }),
        };
  const before =
    gateway === undefined
      ? new Set<string>()
      : new Set((await sessionsOf(gateway)).map((s) => s.id));
  // Through the gateway, the CLI appends its protocol's path to the gateway's route, which the
  // gateway appends to the upstream's base (`gatewayUpstreamBase`).
  const baseUrl =
    gateway === undefined
      ? setup.baseUrl(runBase)
      : `${gateway.origin}/v1/gateway/${gateway.upstream}`;
  let outcome: AgentOutcome;
  try {
    outcome = await runAgent({
      setup,
      dirs,
      baseUrl,
      apiKey: gateway?.upstreamKey ?? DIRECT_KEY,
      headers,
      prompt: task.prompt,
      timeoutMs: options.timeoutMs,
    });
  } catch (error) {
    rmSync(dirs.root, { recursive: true, force: true });
    throw error;
  }
  const calls = upstream.calls(options.name);
  if (options.saveTo !== undefined) save(options.saveTo, calls, outcome);
  const figures = runFigures(protocol, calls, model.failures);
  const reportPath = join(dirs.workspace, task.report.path);
  const reportWritten =
    existsSync(reportPath) && readFileSync(reportPath, "utf8").includes(task.report.marker);
  const created =
    gateway === undefined ? [] : (await sessionsOf(gateway)).filter((s) => !before.has(s.id));
  const session = created[0]?.id;
  let compactions: number | undefined;
  if (gateway !== undefined) {
    compactions = 0;
    for (const listed of created) compactions += await compactionsOf(gateway, listed.id);
  }
  const identity =
    session === undefined
      ? undefined
      : named !== undefined
        ? "X-Condense-Session"
        : identityField(calls, session);
  rmSync(dirs.root, { recursive: true, force: true });
  const cliError = model.finished() ? undefined : lastError(outcome.stdout, outcome.stderr);
  return {
    agent: setup.name,
    route: gateway === undefined ? "direct" : "gateway",
    exitCode: outcome.exitCode,
    timedOut: outcome.timedOut,
    durationMs: outcome.durationMs,
    finished: model.finished() && reportWritten,
    lastStep: model.answered.at(-1) ?? -1,
    limit: options.limit,
    ...figures,
    ...(session !== undefined ? { session } : {}),
    ...(identity !== undefined ? { identity } : {}),
    ...(gateway !== undefined ? { sessions: created.length } : {}),
    ...(compactions !== undefined ? { compactions } : {}),
    tail: `${outcome.stdout.slice(-1500)}\n${outcome.stderr.slice(-1500)}`,
    ...(cliError !== undefined ? { cliError } : {}),
  };
}
