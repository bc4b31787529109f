/**
 * @module test/known-gateway-failures
 * Agents whose run through the gateway is known to fail on the gateway as it
 * is (issue 18), with how. Their test runs as `it.fails`: it passes while the
 * run fails, and fails — asking for its entry here to be removed — once the
 * gateway is fixed. Nothing else belongs here: a direct run never does.
 */

/** By agent setup name (`src/harness/agent-setups`). */
export const KNOWN_GATEWAY_FAILURES: Readonly<Record<string, string>> = {
  "claude-code":
    'refused by the gateway at its first request (400 "message 1 (role): Anthropic messages have role user or assistant, got `system`"): the default model sends a `system` turn inside `messages`',
  "claude-code-opus-4-6":
    "the newest tool result reaches the model as a `[Condense pruned …]` placeholder from the first read on (45 of 63 outputs), the session compacts on every turn (67 compactions), and turns 5–7 are refused upstream for 5 `cache_control` blocks (stale markers kept)",
  codex:
    'dies at turn 62 (400 "unsupported input item type `custom_tool_call`"): the gateway does not keep the custom tool call of apply_patch',
  "pi-anthropic":
    'dies at turn 16, the first request after the first compaction (400 "A maximum of 4 blocks with cache_control may be provided. Found 15."): served from the session, every stored message comes back with the `cache_control` marker pi had put on it when it was the newest',
};
