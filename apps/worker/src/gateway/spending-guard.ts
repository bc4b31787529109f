/**
 * @module gateway/spending-guard
 * The daily cap on what each user spends through the deployment's own
 * provider keys (`GATEWAY_USER_TOKENS_PER_DAY`). A gateway request that sends
 * the deployment's key upstream is checked before anything else happens: once
 * the user's tokens of the UTC day reach the cap it is refused with 429
 * `budget_exceeded` (in the protocol's shape, as every gateway error), and
 * nothing is planned, stored or sent. Its answer's usage as the upstream
 * reports it (input + output tokens, streamed or not) is added to the day's
 * count in the user's object (`user/token-usage`) after the response, as is
 * the usage of an upstream `/responses/compact` (a model call too), and that
 * of the summaries a session writes through the turn's own upstream
 * (`cachedSummaries`, `plans/cached-summary`). A request with the caller's
 * own provider key is neither checked nor counted.
 *
 * The count is of answers that completed: a stream the client abandons, or
 * a Chat Completions stream without `stream_options.include_usage`, reports
 * no usage and is not counted; of the hidden rounds of the recall tool, the
 * first round's prompt and the final answer are.
 */

import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../api/errors";
import { workerConfig } from "../config/worker-config";
import type { AppEnv } from "../http/app-env";
import { logLine } from "../log/log-lines";
import { userStub } from "../user/user-stub";
import type { ForwardPlan } from "./plans/forward-plan";
import type { ProtocolAnswer } from "./protocols/protocol";

const DAY_MS = 86_400_000;

/** The UTC day of `nowMs`, as `YYYY-MM-DD` (the key of a day's count). */
export function utcDay(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

/** Seconds from `nowMs` until the next UTC day begins (at least 1). */
function secondsToNextDay(nowMs: number): number {
  const next = (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS;
  return Math.max(1, Math.ceil((next - nowMs) / 1000));
}

/** The cap (`GATEWAY_USER_TOKENS_PER_DAY`, checked with the rest of the configuration), or undefined for none. */
export function dailyTokenCap(env: Env): number | undefined {
  return workerConfig(env).gatewayUserTokensPerDay;
}

function budgetExceeded(cap: number, spent: number, nowMs: number): ApiError {
  const wait = secondsToNextDay(nowMs);
  return new ApiError(
    429,
    "budget_exceeded",
    `you have used ${spent} of the ${cap} tokens a day this deployment's provider keys allow each user (GATEWAY_USER_TOKENS_PER_DAY); the count starts again at 00:00 UTC, in ${wait} seconds. To go on now, send your own provider key in \`Authorization\` (or \`x-api-key\`) and your Condense credential in \`X-Condense-Key\``,
    { cap, spent, resetsInSeconds: wait },
    // Retrying within the SDKs' backoff cannot help: tell them not to.
    { "Retry-After": String(wait), "x-should-retry": "false" },
  );
}

/** Whether the request's tokens count against its user's cap, and the cap they count against. */
function guardedCap(c: Context<AppEnv>): number | undefined {
  return c.get("upstream").deploymentKey ? dailyTokenCap(c.env) : undefined;
}

/**
 * The guard as a gateway route's middleware, after its authentication: refuses a request on the
 * deployment's key from a user whose day's tokens reached the cap.
 */
export function spendingGuard(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const cap = guardedCap(c);
    if (cap !== undefined) {
      const now = Date.now();
      const spent = await userStub(c.env, c.get("userId")).tokensSpent(utcDay(now));
      if (spent >= cap) throw budgetExceeded(cap, spent, now);
    }
    await next();
  };
}

/** The answer's tokens as the upstream reported them (0 when it reported none). */
function answerTokens(answer: ProtocolAnswer): number {
  return (answer.usage?.inputTokens ?? 0) + (answer.outputTokens ?? 0);
}

/**
 * Adds the tokens of an answer the upstream gave beside the model requests (such as
 * `/responses/compact`) to the user's count of the day, when the request is guarded.
 * Never throws: an error is logged.
 */
export async function meterAnswer(
  c: Context<AppEnv>,
  answer: ProtocolAnswer | undefined,
): Promise<void> {
  const tokens = answer === undefined ? 0 : answerTokens(answer);
  if (guardedCap(c) === undefined || tokens === 0) return;
  await recordTokens(c.env, c.get("userId"), c.get("requestId"), tokens);
}

async function recordTokens(
  env: Env,
  userId: string,
  requestId: string,
  tokens: number,
): Promise<void> {
  try {
    await userStub(env, userId).recordTokens(utcDay(Date.now()), tokens);
  } catch (error) {
    logLine({
      type: "token_usage_failed",
      requestId,
      error: error instanceof Error ? error.name : "unknown",
    });
  }
}

/**
 * `plan` with its answer's tokens added to the user's count of the day, when the request is
 * guarded; as it was otherwise. The count never fails the answer: an error is logged.
 */
export function meteredPlan(c: Context<AppEnv>, plan: ForwardPlan): ForwardPlan {
  if (guardedCap(c) === undefined) return plan;
  const { env } = c;
  const userId = c.get("userId");
  const requestId = c.get("requestId");
  const count = async (answer: ProtocolAnswer): Promise<void> => {
    const tokens = answerTokens(answer);
    if (tokens === 0) return;
    await recordTokens(env, userId, requestId, tokens);
  };
  return {
    ...plan,
    answered: async (answer, sent) => {
      const metered = sent === undefined ? undefined : { ...sent, meter: count };
      await Promise.all([plan.answered(answer, metered), count(answer)]);
    },
  };
}
