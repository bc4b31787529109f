# The cost journey's commands, run as written by scripts/journeys.test.ts after the gateway
# journey's (same CONDENSE_URL and CONDENSE_KEY). The tutorial page shows them.
# #region snippet
# What compaction did: every compaction of the session, with its tier and tokens before and after.
curl -s "$CONDENSE_URL/v1/sessions/claude-code:first-run/compactions" -H "Authorization: Bearer $CONDENSE_KEY"

# The session's status: its context's tokens now, against its budget and window.
curl -s "$CONDENSE_URL/v1/sessions/claude-code:first-run" -H "Authorization: Bearer $CONDENSE_KEY"
# #endregion
