/**
 * @module gateway/plans/cache-diagnostics
 * Anthropic's cache diagnostics (issue 32, build 3;
 * platform.claude.com/docs/en/build-with-claude/cache-diagnostics): a Messages request that carries
 * `diagnostics: { previous_message_id }` has Anthropic keep a fingerprint of it (hashes and token
 * counts, under the id of its answer) and compare it with the request that `previous_message_id`
 * names; the answer's `diagnostics.cache_miss_reason` then says what changed (the model, the system
 * prompt, the tools, the messages), read by `protocols/anthropic-protocol` and recorded per turn.
 * The opt-in is the object itself: `previous_message_id` null on the first turn, the previous
 * answer's id after.
 *
 * With the session's setting `cacheDiagnostics` on, the gateway opts its Anthropic requests in with
 * the id of the last answer to an opted-in request (stored on that turn). It is a setting, off by
 * default, because the English page still calls the feature a beta (the other languages' pages and
 * the SDK's GA `messages.create` parameters have it generally available, without the beta header,
 * so none is sent) and because it has Anthropic retain a fingerprint of every request for a while:
 * a data-retention choice the user makes. A request that carries its own `diagnostics` keeps them.
 */

import type { GatewayProtocol, RequestBody } from "../protocols/protocol";

/** What the session says: null when the setting is off, else the id to name (null: none yet). */
export type DiagnosticsState = { previousMessageId: string | null } | null;

/** The `diagnostics` the gateway adds to an Anthropic request, or undefined when it adds none. */
export function diagnosticsOptIn(
  protocol: GatewayProtocol,
  body: RequestBody,
  state: DiagnosticsState,
): { previous_message_id: string | null } | undefined {
  if (state === null || protocol.name !== "anthropic" || body.diagnostics !== undefined) {
    return undefined;
  }
  return { previous_message_id: state.previousMessageId };
}
