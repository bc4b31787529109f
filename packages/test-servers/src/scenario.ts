/**
 * @module scenario
 * The one way a test scripts the scripted upstream: a `Scenario`, a plain
 * typed object naming the test's requests and saying how the provider treats
 * them — what it refuses (a token limit, a status), how its answer goes wrong
 * or is paced, what it answers with. Every harness built on `startTestServer`
 * reads the fields it plays and ignores the others:
 *
 * | harness | fields it plays | how the scenario reaches it |
 * | --- | --- | --- |
 * | the Worker's summarizer LLM (`apps/worker/test/support/llm-server.ts`) | `hold`, `fail`, `memory`, `malformed` | the session's model name: `scenarioModel` |
 * | the gateway's upstream (`apps/worker/test/support/gateway-upstream.ts`) | `limit`, `scale`, `sumOverflow`, `inject`, `fail`, `hold`, `fault`, `delayMs`, `slowMs`, `tool`, `cache`, `prefixCache`, `bare` | request headers through the gateway: `scenarioHeaders` |
 * | the client's provider (`packages/client/test/scenario-server.ts`) | `limit`, `charsPerToken`, `providers`, `fail`, `tool`, `toolEvery`, `reportUsage`, `answerChars` | registered once (`POST /scenarios`), then the model name is `name` |
 * | the agents' provider (`tests/agents/src/upstream/scripted-upstream.ts`) | `limit` | the base URL's first segment: `scenarioBaseUrl` |
 * | any `startTestServer` (the engine's tests) | `fail`, `fault`, `delayMs`, `slowMs` | `scenarioHandler` |
 *
 * The wire forms (a model name like `hold:<name>`, the `x-test-upstream`
 * header, a base path) are this module's business: tests write the object and
 * these functions encode it, and the harnesses decode it with the inverse
 * functions here, so the two never disagree.
 */

import type { OverflowProvider } from "./provider-overflows.ts";
import type { Reply } from "./reply.ts";
import type { Handler } from "./server.ts";

/** How the scripted upstream treats one test's requests. Every field but `name` is optional. */
export interface Scenario {
  /**
   * Names the test's requests: the records the harness keeps of them, the answers queued for
   * them, what `hold` waits for the test to release. Unique per test, so tests running at once
   * never share state.
   */
  name: string;
  /** Refuse a prompt over this many tokens with the provider's own overflow error. */
  limit?: number;
  /** The provider counts a prompt as this many times the engine's count (another tokenizer). */
  scale?: number;
  /** The provider's own count: characters per token (the client's provider; default 3). */
  charsPerToken?: number;
  /** Anthropic's other overflow: `input length and max_tokens exceed context limit: N + M > L`. */
  sumOverflow?: boolean;
  /** The providers whose overflow errors an OpenAI-protocol request gets, in rotation (default all). */
  providers?: OverflowProvider[];
  /** The first request is refused as `tokens` over a window of `limit`, whatever its size. */
  inject?: { tokens: number; limit: number };
  /** Every request fails with this status (in the protocol's error shape), or with this body. */
  fail?: number | { status: number; body: unknown };
  /** Wait to answer until the test releases the scenario's name. */
  hold?: boolean;
  /** The answer goes wrong: never sent, a stream that stops after its first events, cut partway. */
  fault?: "hang" | "stall" | "drop";
  /** Wait this long before answering. */
  delayMs?: number;
  /** Pause this long between two events of a stream. */
  slowMs?: number;
  /** Answer with a call of this tool (default `read_file` when `toolEvery` is set). */
  tool?: string;
  /** Every `toolEvery`-th answer (1-based) is the tool call (default every one when `tool` is set). */
  toolEvery?: number;
  /** The answer's usage says this many prompt tokens were read from the prompt cache, and written. */
  cache?: { read: number; write: number };
  /**
   * The answer's usage reports as read from the prompt cache the longest prefix of whole messages
   * an earlier request of this scenario sent with the same model, system, tools and instructions:
   * a provider's cache, for a test that extends a prompt (a summary through the cache).
   */
  prefixCache?: boolean;
  /** Anthropic's answer `diagnostics` say the prompt cache missed `tokens` for `reason`. */
  cacheMiss?: { reason: string; tokens: number };
  /** `false`: OpenAI-protocol answers report no usage. */
  reportUsage?: boolean;
  /** Characters of each text answer. */
  answerChars?: number;
  /** The provider has none of its side endpoints (`count_tokens`, `/responses/compact`, `:countTokens`). */
  bare?: boolean;
  /** The summarizer answers a request that offers tools (the memory flush) with `memory` tool calls. */
  memory?: boolean;
  /** OpenAI's `/responses/compact` answers items the engine cannot read. */
  malformed?: boolean;
}

/** A scenario without its name: what a helper that names the requests itself takes. */
export type ScenarioFields = Omit<Scenario, "name">;

// --- The model-name form (the summarizer: a session's model setting is all a test controls). ---

/** The flags of the model-name form, in the order they are written. */
const MODEL_FLAGS = ["hold", "memory", "malformed"] as const;

/**
 * The model name that carries `scenario` to a harness that reads only the model: its flags, then
 * its name (`hold:<name>`, `fail:500:<name>`, `memory:<name>`); a scenario with no flags is its name.
 */
export function scenarioModel(scenario: Scenario): string {
  const parts: string[] = [];
  if (scenario.hold === true) parts.push("hold");
  if (scenario.fail !== undefined) parts.push(`fail:${failStatus(scenario.fail)}`);
  if (scenario.memory === true) parts.push("memory");
  if (scenario.malformed === true) parts.push("malformed");
  if (scenario.name !== "") parts.push(scenario.name);
  return parts.join(":");
}

/** The scenario a model name carries (`scenarioModel`'s inverse); any other model is a bare name. */
export function scenarioFromModel(model: string): Scenario {
  const scenario: Scenario = { name: "" };
  let rest = model;
  for (;;) {
    const fail = /^fail:(\d{3})(?::|$)/.exec(rest);
    if (fail?.[1] !== undefined) {
      scenario.fail = Number(fail[1]);
      rest = rest.slice(fail[0].length);
      continue;
    }
    const flag = MODEL_FLAGS.find((name) => rest === name || rest.startsWith(`${name}:`));
    if (flag === undefined) break;
    scenario[flag] = true;
    rest = rest.slice(flag.length + 1);
  }
  scenario.name = rest;
  return scenario;
}

function failStatus(fail: NonNullable<Scenario["fail"]>): number {
  return typeof fail === "number" ? fail : fail.status;
}

// --- The header form (the gateway forwards a request's headers to its upstream). ---

/** The header that names the scenario. */
export const SCENARIO_NAME_HEADER = "x-test-tag";
/** The header that carries the rest of it. */
export const SCENARIO_HEADER = "x-test-upstream";

/** The request headers that carry `scenario` through a gateway to the upstream. */
export function scenarioHeaders(scenario: Scenario): Record<string, string> {
  const parts: string[] = [];
  if (scenario.hold === true) parts.push("hold");
  if (scenario.limit !== undefined) parts.push(`limit=${scenario.limit}`);
  if (scenario.sumOverflow === true) parts.push("sum");
  if (scenario.scale !== undefined) parts.push(`scale=${scenario.scale}`);
  if (scenario.inject !== undefined) {
    parts.push(`inject=${scenario.inject.tokens}/${scenario.inject.limit}`);
  }
  if (scenario.fail !== undefined) parts.push(`fail=${failStatus(scenario.fail)}`);
  if (scenario.fault !== undefined) parts.push(scenario.fault);
  if (scenario.delayMs !== undefined) parts.push(`delay=${scenario.delayMs}`);
  if (scenario.slowMs !== undefined) parts.push(`slow=${scenario.slowMs}`);
  if (scenario.tool !== undefined) parts.push(`tool=${scenario.tool}`);
  if (scenario.cache !== undefined) {
    parts.push(`cached=${scenario.cache.read}`, `written=${scenario.cache.write}`);
  }
  if (scenario.cacheMiss !== undefined) {
    parts.push(`miss=${scenario.cacheMiss.reason}/${scenario.cacheMiss.tokens}`);
  }
  if (scenario.prefixCache === true) parts.push("prefix-cache");
  if (scenario.bare === true) parts.push("bare");
  return {
    [SCENARIO_NAME_HEADER]: scenario.name,
    ...(parts.length > 0 ? { [SCENARIO_HEADER]: parts.join(";") } : {}),
  };
}

/** The scenario a request's headers carry (`scenarioHeaders`' inverse; names in lower case). */
export function scenarioFromHeaders(headers: Record<string, string>): Scenario {
  const scenario: Scenario = { name: headers[SCENARIO_NAME_HEADER] ?? "" };
  for (const part of (headers[SCENARIO_HEADER] ?? "").split(";")) {
    const [key, value = ""] = part.trim().split("=");
    if (key === "limit") scenario.limit = Number(value);
    else if (key === "sum") scenario.sumOverflow = true;
    else if (key === "fail") scenario.fail = Number(value);
    else if (key === "hang" || key === "stall" || key === "drop") scenario.fault = key;
    else if (key === "hold") scenario.hold = true;
    else if (key === "bare") scenario.bare = true;
    else if (key === "prefix-cache") scenario.prefixCache = true;
    else if (key === "delay") scenario.delayMs = Number(value);
    else if (key === "slow") scenario.slowMs = Number(value);
    else if (key === "tool") scenario.tool = value;
    else if (key === "scale") scenario.scale = Number(value);
    else if (key === "cached") {
      scenario.cache = { read: Number(value), write: scenario.cache?.write ?? 0 };
    } else if (key === "written") {
      scenario.cache = { read: scenario.cache?.read ?? 0, write: Number(value) };
    } else if (key === "miss") {
      const [reason = "", tokens = ""] = value.split("/");
      scenario.cacheMiss = { reason, tokens: Number(tokens) };
    } else if (key === "inject") {
      const [tokens = "", limit = ""] = value.split("/");
      scenario.inject = { tokens: Number(tokens), limit: Number(limit) };
    }
  }
  return scenario;
}

// --- The base-path form (an agent CLI sets its provider's base URL and nothing else). ---

/** The base URL that carries `scenario` to a harness serving each scenario under `/<name>/`. */
export function scenarioBaseUrl(origin: string, scenario: Scenario): string {
  return `${origin}/${encodeURIComponent(scenario.name)}`;
}

/** The scenario name a request path's first segment carries, and the path after it. */
export function scenarioFromPath(path: string): { name: string; rest: string } {
  const [, first = "", ...rest] = path.split("/");
  return { name: decodeURIComponent(first), rest: `/${rest.join("/")}` };
}

// --- A handler for any `startTestServer`. ---

/**
 * A handler that plays `scenario`'s failure and pacing (`fail`, `fault`, `delayMs`, `slowMs`)
 * and otherwise answers as `answer` does (default: an empty completion).
 */
export function scenarioHandler(scenario: ScenarioFields, answer?: Handler): Handler {
  return async (request, index, connection) => {
    const pace = scenario.delayMs === undefined ? {} : { delayMs: scenario.delayMs };
    const { fail, fault } = scenario;
    if (fail !== undefined) {
      return typeof fail === "number"
        ? { type: "error", status: fail, message: `scripted failure ${fail}`, ...pace }
        : { type: "raw", status: fail.status, body: JSON.stringify(fail.body), ...pace };
    }
    if (fault === "hang") return { type: "hang", ...pace };
    if (fault === "drop") return { type: "truncated", content: "cut", ...pace };
    const reply: Reply = (await answer?.(request, index, connection)) ?? {
      type: "completion",
    };
    if (reply.type !== "completion") return reply;
    return {
      ...reply,
      ...pace,
      ...(scenario.slowMs === undefined ? {} : { slowMs: scenario.slowMs }),
      ...(fault === "stall" ? { stall: true } : {}),
    };
  };
}
