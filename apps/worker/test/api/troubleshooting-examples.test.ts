/**
 * The troubleshooting page's failures (issue 30): each one made here as an agent meets it, through
 * the unmodified `openai` SDK against the gateway (or a plain call), and recorded with what the
 * agent prints (the SDK error's message), its status and the headers that explain it. The docs
 * site's troubleshooting page shows them (`apps/docs/troubleshooting-examples.json`, read by
 * `pnpm --filter @condense/docs generate`). A file snapshot: when a message changes, this test fails
 * until it is re-recorded with `npx vitest run test/api/troubleshooting-examples.test.ts -u`.
 */

import { env } from "cloudflare:test";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { freshTag, openaiClient } from "../support/gateway-helpers";
import { call, TOKENS } from "../support/helpers";
import { signJwt } from "../support/jwt";

interface Failure {
  /** The failure's name on the page (its section reads it). */
  id: string;
  status: number;
  /** What the agent prints: the SDK error's message, or the API's `error.message`. */
  message: string;
  code: string | null;
  headers: Record<string, string>;
}

const SHOWN_HEADERS = /^(x-condense-.*|retry-after|x-should-retry)$/i;

function appFetch(bindings: Partial<Cloudflare.Env>): typeof fetch {
  const app = createApp();
  return async (input, init) => app.request(input, init, { ...env, ...bindings });
}

function shownHeaders(headers: Headers | undefined): Record<string, string> {
  const shown: Record<string, string> = {};
  headers?.forEach((value, name) => {
    if (!SHOWN_HEADERS.test(name)) return;
    // Seconds until 00:00 UTC differ each run; the session ids are the test's own.
    shown[name] = name === "retry-after" && value !== "60" ? "<seconds until 00:00 UTC>" : value;
  });
  delete shown["x-condense-session"];
  return shown;
}

/** The failure an SDK call ends in, as the agent sees it. */
async function failureOf(id: string, attempt: () => Promise<unknown>): Promise<Failure> {
  try {
    await attempt();
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return {
      id,
      status: error.status ?? 0,
      // The seconds until 00:00 UTC differ each run.
      message: error.message.replace(/\bin \d+ seconds\b/, "in <seconds until 00:00 UTC> seconds"),
      code: typeof error.code === "string" ? error.code : null,
      headers: shownHeaders(error.headers),
    };
  }
  throw new Error(`${id}: the call succeeded`);
}

const ask = (content: string) => ({
  model: "gpt-4o",
  messages: [
    { role: "system" as const, content: "You are a coding agent." },
    { role: "user" as const, content },
  ],
});

describe("the troubleshooting page's failures", () => {
  it("are what the agents print, as recorded for the docs", async () => {
    const key = TOKENS.alice ?? "";
    const failures: Failure[] = [];

    // The provider key where the Condense key is read: no X-Condense-Key, so Authorization is
    // taken as the Condense credential.
    failures.push(
      await failureOf("provider-key-read-as-condense-key", () =>
        openaiClient(freshTag(), {
          as: null,
          providerKey: "sk-proj-your-openai-key",
        }).chat.completions.create(ask("hello")),
      ),
    );
    // The Condense key as the provider key, on a deployment that holds no provider key.
    failures.push(
      await failureOf("no-deployment-provider-key", () =>
        openaiClient(freshTag(), {
          as: null,
          providerKey: key,
          fetch: appFetch({ GATEWAY_KEY_UP: undefined }),
        }).chat.completions.create(ask("hello")),
      ),
    );
    // A JWT that expired during a long run.
    const expired = await signJwt({ sub: "alice", exp: Math.floor(Date.now() / 1000) - 3600 });
    const jwtReply = await call<{ error: { code: string; message: string } }>(
      "GET",
      "/v1/sessions",
      { as: expired },
    );
    failures.push({
      id: "expired-jwt",
      status: jwtReply.status,
      message: jwtReply.body.error.message,
      code: jwtReply.body.error.code,
      headers: {},
    });
    failures.push(
      await failureOf("rate-limited", () =>
        openaiClient(freshTag(), {
          fetch: appFetch({
            RATE_LIMITER: { limit: () => Promise.resolve({ success: false }) },
          }),
        }).chat.completions.create(ask("hello")),
      ),
    );
    // The deployment's daily token budget for its own provider key, spent by the first request.
    const budgeted = openaiClient(freshTag(), {
      as: null,
      providerKey: TOKENS.carol ?? "",
      fetch: appFetch({ GATEWAY_USER_TOKENS_PER_DAY: "1" }),
    });
    await budgeted.chat.completions.create(ask("hello"));
    failures.push(
      await failureOf("budget-exceeded", () => budgeted.chat.completions.create(ask("hello"))),
    );
    // The upstream's overflow that no smaller context fixes: passed through with the reason.
    failures.push(
      await failureOf("overflow-passed-through", () =>
        openaiClient(freshTag(), {
          session: `trouble-${crypto.randomUUID()}`,
          scenario: { limit: 20 },
        }).chat.completions.create(ask("Fix the failing CSV test.")),
      ),
    );
    // A session whose never-cut part (here one user message) is over the window by itself.
    failures.push(
      await failureOf("context-over-window", () =>
        openaiClient(freshTag(), {
          session: `trouble-${crypto.randomUUID()}`,
          headers: { "X-Condense-Context-Window": "1000" },
        }).chat.completions.create(ask("Fix the failing CSV test. ".repeat(400))),
      ),
    );

    // A history that does not extend the session's: a new generation, answered as usual.
    const session = `trouble-${crypto.randomUUID()}`;
    const agent = openaiClient(freshTag(), { session });
    await agent.chat.completions.create(ask("Fix the failing CSV test."));
    const rewound = await agent.chat.completions
      .create(ask("Start over: fix the failing JSON test."))
      .withResponse();
    failures.push({
      id: "new-generation",
      status: rewound.response.status,
      message: "",
      code: null,
      headers: shownHeaders(rewound.response.headers),
    });

    expect(failures.map((failure) => [failure.id, failure.status])).toEqual([
      ["provider-key-read-as-condense-key", 401],
      ["no-deployment-provider-key", 401],
      ["expired-jwt", 401],
      ["rate-limited", 429],
      ["budget-exceeded", 429],
      ["overflow-passed-through", 400],
      ["context-over-window", 422],
      ["new-generation", 200],
    ]);
    await expect(`${JSON.stringify(failures, null, 2)}\n`).toMatchFileSnapshot(
      "../../../docs/troubleshooting-examples.json",
    );
  });
});
