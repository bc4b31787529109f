/**
 * Claude Code and Codex compacting on their own, mid-task, through the gateway
 * (`harness/compact-runs`): Claude Code's `/compact` between two headless runs
 * of one conversation, Codex's automatic compaction. The session follows the
 * agent: one session for the run, no refusal, the task finished, what came
 * before the agent's compaction kept in the session's transcript (an earlier
 * generation), and no compaction of the gateway's on top of the agent's (the
 * first one in the agent's new history covers a good part of it).
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type DevServer, startWranglerDev } from "@condense/worker/test-e2e/wrangler-dev";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAgentClis } from "../src/harness/agent-clis.ts";
import type { AgentSetup } from "../src/harness/agent-setups.ts";
import {
  agentCompactions,
  claudeCodeCompacting,
  codexCompacting,
} from "../src/harness/compact-runs.ts";
import { gatewayUpstreamBase, runTask, type TaskRunReport } from "../src/harness/task-run.ts";
import { type ScriptedUpstream, startScriptedUpstream } from "../src/upstream/scripted-upstream.ts";

const workerDir = join(dirname(fileURLToPath(import.meta.url)), "../../../apps/worker");
const CONDENSE_KEY = "agents-compact-condense-key";
const CONTEXT_WINDOW = "32k";
const GATEWAY_LIMIT = 48_000;
const RUN_TIMEOUT_MS = 280_000;
const INSTALL_TIMEOUT_MS = 30 * 60_000;
/**
 * The fewest messages of the agent's new history a gateway compaction right after it would cover.
 * 8, not 10: one real Claude Code run covered 9 (it re-attaches the files it read, close to the 32k
 * trigger); a compaction right after the agent's own covers 1 or 2.
 */
const NOT_RIGHT_AWAY = 8;
const SETUPS = [claudeCodeCompacting, codexCompacting];
/** Runs only the setups whose name holds this (`claude`, `codex`). */
const ONLY = process.env.CONDENSE_AGENTS_ONLY;
/** Set to a directory to keep every request of every run there. */
const CAPTURE_DIR = process.env.CONDENSE_AGENTS_CAPTURE;

let upstream: ScriptedUpstream;
let server: DevServer | undefined;
const rows: Record<string, unknown>[] = [];

const upstreamKey = (setup: AgentSetup) => `sk-deployment-${setup.name}`;

beforeAll(() => ensureAgentClis(), INSTALL_TIMEOUT_MS);

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  const vars: Record<string, string> = {
    API_KEYS: `agents:${CONDENSE_KEY}`,
    GATEWAY_LOCAL_USER: "agents",
    COMPACTION_DELAY_MS: "0",
    GATEWAY_UPSTREAMS: SETUPS.map(
      (setup) => `${setup.name}=${gatewayUpstreamBase(setup, upstream, setup.name)}`,
    ).join(","),
  };
  for (const setup of SETUPS) {
    vars[`GATEWAY_KEY_${setup.name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`] = upstreamKey(setup);
  }
  server = await startWranglerDev({ workerDir, vars });
});

afterAll(async () => {
  await server?.stop();
  await upstream?.close();
  console.table(rows);
});

async function api<T>(path: string): Promise<T> {
  if (server === undefined) throw new Error("wrangler dev did not start");
  const response = await fetch(`${server.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${CONDENSE_KEY}` },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

interface Compaction {
  trigger: string;
  range: { fromSeq: number; toSeq: number };
  tokensBefore: number;
}

describe.each(
  SETUPS.filter((setup) => ONLY === undefined || ONLY === "" || setup.name.includes(ONLY)).map(
    (setup) => [setup.name, setup] as const,
  ),
)("%s", (name, setup) => {
  it("compacts on its own mid-task through the gateway, and the session follows", async () => {
    if (server === undefined) throw new Error("wrangler dev did not start");
    const report: TaskRunReport = await runTask({
      setup,
      upstream,
      name,
      limit: GATEWAY_LIMIT,
      timeoutMs: RUN_TIMEOUT_MS,
      ...(CAPTURE_DIR === undefined || CAPTURE_DIR === ""
        ? {}
        : { saveTo: join(CAPTURE_DIR, name) }),
      gateway: {
        origin: server.baseUrl,
        upstream: name,
        apiKey: CONDENSE_KEY,
        upstreamKey: upstreamKey(setup),
        contextWindow: CONTEXT_WINDOW,
      },
    });
    const calls = upstream.calls(name);
    const context = JSON.stringify({ ...report, tail: report.tail.slice(-2500) }, null, 1);
    const session = report.session ?? "";
    const status =
      session === ""
        ? undefined
        : await api<{ generation: number; messageCount: number }>(
            `/v1/sessions/${encodeURIComponent(session)}`,
          );
    const { compactions } =
      session === ""
        ? { compactions: [] as Compaction[] }
        : await api<{ compactions: Compaction[] }>(
            `/v1/sessions/${encodeURIComponent(session)}/compactions`,
          );
    const generations: Array<{ generation: number; firstSeq: number; messages: number }> = [];
    for (let generation = 1; generation <= (status?.generation ?? 0); generation++) {
      const page = await api<{ messages: Array<{ seq: number }> }>(
        `/v1/sessions/${encodeURIComponent(session)}/transcript?generation=${generation}&limit=1000`,
      );
      generations.push({
        generation,
        firstSeq: page.messages[0]?.seq ?? 0,
        messages: page.messages.length,
      });
    }
    const kept =
      session === ""
        ? { sideRequests: [] as Array<{ reason: string; generation: number }> }
        : await api<{ sideRequests: Array<{ reason: string; generation: number }> }>(
            `/v1/sessions/${encodeURIComponent(session)}/side-requests?limit=100`,
          );
    if (process.env.CONDENSE_AGENTS_DEBUG === "1") {
      console.log(JSON.stringify({ status, compactions, kept }, null, 1).slice(0, 6000));
    }
    const ownCompactions = agentCompactions(setup, calls);
    rows.push({
      agent: name,
      finished: report.finished,
      turns: report.turns,
      agentCompactions: ownCompactions,
      gatewayCompactions: compactions.length,
      largest: `${report.largestContext}/${report.limit}`,
      sessions: report.sessions,
      generations: generations.map((g) => `${g.generation}:${g.messages}`).join(" "),
      refusals: report.refusals.length,
      sideKept: kept.sideRequests.map((side) => `${side.reason}@${side.generation}`).join(" "),
      seconds: Math.round(report.durationMs / 1000),
      cliError: report.cliError?.slice(0, 160) ?? "",
    });

    // The endpoints the scripted upstream lacks (the gateway answers them with the engine's).
    const refusals = report.refusals.filter(
      (refusal) => !/^no route POST \S*(count_tokens|responses\/compact)/.test(refusal.message),
    );
    expect(refusals, context).toEqual([]);
    expect(report.failures, context).toEqual([]);
    expect(report.timedOut, report.tail).toBe(false);
    expect(report.exitCode, report.tail).toBe(0);
    expect(report.finished, context).toBe(true);
    expect(ownCompactions, context).toBeGreaterThanOrEqual(1);
    expect(report.sessions, context).toBe(1);
    expect(report.largestContext, context).toBeLessThanOrEqual(GATEWAY_LIMIT);
    // The transcript kept what came before: the agent's compaction started a generation.
    expect(generations.length, context).toBeGreaterThanOrEqual(2);
    expect(generations[0]?.messages ?? 0, context).toBeGreaterThan(NOT_RIGHT_AWAY);
    // No gateway compaction stacked right on the agent's: each one in a later generation covers
    // a good part of the agent's new history.
    for (const compaction of compactions) {
      const generation = [...generations]
        .reverse()
        .find((g) => g.firstSeq <= compaction.range.fromSeq);
      if (generation === undefined || generation.generation === 1) continue;
      expect(compaction.range.toSeq - generation.firstSeq + 1, context).toBeGreaterThanOrEqual(
        NOT_RIGHT_AWAY,
      );
    }
  });
});
