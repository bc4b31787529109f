/**
 * @module api/error-catalog
 * What each error code of the API means to a caller: the statuses it comes with and when. The
 * docs site's error-code reference is generated from this table
 * (`pnpm --filter @condense/docs generate`), and its type makes a new `ErrorCode` fail the type
 * check until it is described here.
 */

import type { ErrorCode } from "./errors";

export interface ErrorCodeEntry {
  /** The HTTP status (or statuses) the code comes with. */
  status: string;
  /** When the API answers it, and what to do about it. */
  when: string;
}

export const ERROR_CATALOG: Record<ErrorCode, ErrorCodeEntry> = {
  invalid_json: { status: "400", when: "the body is not UTF-8 JSON" },
  invalid_request: {
    status: "400",
    when: "a field breaks the schema (`details.issues[].path` names it); also a query parameter out of range, such as `providerData` other than `true` or `false`",
  },
  invalid_messages: {
    status: "400",
    when: "the engine rejected the messages (`details.problems`: index, path, kind, message); at append also `orphan_result`, `duplicate_result`, `duplicate_tool_call_id` (see [the HTTP API's conventions](/reference/http-api/))",
  },
  invalid_session_id: {
    status: "400",
    when: "the session id is malformed or empty (`/v1/sessions//context`): use 1-128 characters of `A-Z a-z 0-9 . _ : -`, other than `.` and `..`",
  },
  invalid_options: {
    status: "400",
    when: "the engine rejected an option, or a PATCH would leave settings compactions cannot run with (`details.setting`; the message says the fix)",
  },
  unknown_format: { status: "400", when: "`format` is not `openai`, `anthropic` or `responses`" },
  unsupported_media_type: { status: "415", when: "the body is not `application/json`" },
  body_too_large: {
    status: "413",
    when: "the body is over 16 MiB (by `Content-Length` or while reading)",
  },
  message_too_large: {
    status: "413",
    when: "a message is over 4 MiB of content (plus 64 KiB for its envelope)",
  },
  unauthorized: {
    status: "401",
    when: "no bearer token, or an invalid one: an unknown API key; a JWT that is expired or not yet valid (30 s leeway), signed with `alg: none`, an algorithm its key is not for, an unknown `kid` or a bad signature, or naming another issuer or audience than `JWT_ISSUER`/`JWT_AUDIENCE`",
  },
  jwks_unavailable: {
    status: "503",
    when: "the identity provider's key set (`JWT_JWKS_URL`) could not be fetched: the token may be fine, retry later",
  },
  rate_limited: {
    status: "429",
    when: "the user sent more requests than the `RATE_LIMITER` binding allows: wait `Retry-After` seconds (the gateway answers in its protocol's shape)",
  },
  budget_exceeded: {
    status: "429",
    when: "a gateway request on the deployment's provider key after the user spent `GATEWAY_USER_TOKENS_PER_DAY` tokens today (UTC): wait until 00:00 UTC (`Retry-After`), or send your own provider key with `X-Condense-Key`",
  },
  invalid_configuration: {
    status: "500",
    when: "a variable of the deployment is wrong (`details.variable` names it): its operator fixes it in `wrangler.jsonc` or with `wrangler secret put`",
  },
  auth_not_configured: {
    status: "503",
    when: "none of `API_KEYS`, `JWT_SECRET` and `JWT_JWKS_URL` is set: the deployment fails closed",
  },
  not_found: { status: "404", when: "unknown route, session (or someone else's), or tool output" },
  method_not_allowed: {
    status: "405",
    when: "a known path with the wrong method (`Allow` lists the right ones)",
  },
  idempotency_conflict: {
    status: "409",
    when: "an `Idempotency-Key` reused with a different body",
  },
  not_an_overflow: {
    status: "422",
    when: "`/overflow` got an error that is not a context overflow",
  },
  context_over_window: {
    status: "422",
    when: "a session's context cannot fit its window even with every tool output the model has seen pruned and every newer one cut to its head and tail: what is never cut (system prompt, user messages, pinned messages, the summary) is over by itself (`details`: the window, the tokens left, what fits); `GET /context`, `/overflow` and gateway turns with a session (in the protocol's shape). Use a larger `contextWindow`, shorter user messages, or unpin messages",
  },
  format_not_available: {
    status: "409",
    when: "an `openai`-strategy context asked for in a format other than `responses`, or a context with parts the format cannot carry (`details.problems`)",
  },
  invalid_query: {
    status: "400",
    when: "a search (`/search`, `/v1/memory/search`) without a word to find in `q` (empty, or only punctuation and operators)",
  },
  not_configured: { status: "501", when: "`/v1/responses/compact` without `OPENAI_API_KEY`" },
  upstream_error: {
    status: "4xx/5xx",
    when: "OpenAI's error on `/v1/responses/compact`, with OpenAI's status (502 when unreachable)",
  },
  memory_full: { status: "409", when: "the user already keeps 500 memories" },
  memory_too_long: { status: "400", when: "a memory's text is over 2,000 characters" },
  memory_not_found: { status: "404", when: "unknown memory id (or another user's)" },
  memory_secret: {
    status: "422",
    when: "a memory's text holds what looks like a secret (key, token, password)",
  },
  invalid_cursor: { status: "400", when: "a `cursor` the list did not return" },
  unknown_upstream: {
    status: "404",
    when: "the gateway's `{upstream}` is not a configured name (in the route's protocol shape, as every gateway error)",
  },
  upstream_unreachable: { status: "502", when: "the gateway could not reach the upstream" },
  upstream_timeout: {
    status: "504",
    when: "the upstream did not answer within `GATEWAY_TIMEOUT_MS`",
  },
  recall_rounds_exceeded: {
    status: "502",
    when: "the upstream still called the gateway's recall tool after 3 rounds and a request for an answer without tool calls",
  },
  history_on_provider: {
    status: "400",
    when: "a gateway count of tokens (`count_tokens`, `:countTokens`) or `/responses/compact` whose history is kept on the provider's side (`previous_response_id`, `conversation`, `cachedContent`), where the upstream has no such endpoint and the gateway would have to answer itself: send the whole history",
  },
  internal_error: {
    status: "500",
    when: "anything unexpected (never a stack trace; quote the `X-Request-Id`)",
  },
};
