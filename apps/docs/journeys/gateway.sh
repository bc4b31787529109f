# The gateway journey's commands, run as written by scripts/journeys.test.ts (from the repository's
# root, after `pnpm start` has written apps/worker/.dev.vars). The tutorial page shows them.
# #region snippet
export CONDENSE_URL=${CONDENSE_URL:-http://localhost:8787}

# One turn as Claude Code sends it: its own key, its own session id, nothing of Condense's. The
# base URL is the only change an agent needs.
curl -s -i "$CONDENSE_URL/v1/gateway/anthropic/v1/messages" \
  -H "x-api-key: $ANTHROPIC_API_KEY" \
  -H "anthropic-version: 2023-06-01" \
  -H "x-claude-code-session-id: first-run" \
  -H "content-type: application/json" \
  -d '{"model":"claude-sonnet-4-6","max_tokens":256,"system":"You are a coding agent.","messages":[{"role":"user","content":"Say hello."}]}'

# See that it worked, with your Condense key (the one `pnpm start` printed; it keeps it in
# apps/worker/.dev.vars): the session holds the turn.
export CONDENSE_KEY=$(sed -n 's/^API_KEYS=[^:]*://p' apps/worker/.dev.vars)
curl -s "$CONDENSE_URL/v1/sessions/claude-code:first-run" -H "Authorization: Bearer $CONDENSE_KEY"
# #endregion
