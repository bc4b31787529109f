# The gateway journey's commands, run as written by scripts/journeys.test.ts (from the repository's
# root, after `pnpm start` has written apps/worker/.dev.vars). The tutorial page shows them.
# #region snippet
# Your Condense key: the one `pnpm start` printed (it keeps it in apps/worker/.dev.vars).
export CONDENSE_URL=${CONDENSE_URL:-http://localhost:8787}
export CONDENSE_KEY=$(sed -n 's/^API_KEYS=[^:]*://p' apps/worker/.dev.vars)

# One turn of an agent through the gateway: its own provider key in Authorization, its Condense
# key in X-Condense-Key, the session in X-Condense-Session.
curl -s -i "$CONDENSE_URL/v1/gateway/openai/chat/completions" \
  -H "Authorization: Bearer $OPENAI_API_KEY" \
  -H "X-Condense-Key: $CONDENSE_KEY" \
  -H "X-Condense-Session: first-run" \
  -H "Content-Type: application/json" \
  -d '{"model":"gpt-4o","messages":[{"role":"system","content":"You are a coding agent."},{"role":"user","content":"Say hello."}]}'

# See that it worked: the session holds the turn (2 messages and the model's answer: 3).
curl -s "$CONDENSE_URL/v1/sessions/first-run" -H "Authorization: Bearer $CONDENSE_KEY"
# #endregion
