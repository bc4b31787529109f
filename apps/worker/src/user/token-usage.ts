/**
 * @module user/token-usage
 * The tokens a user spent through the gateway on the deployment's own
 * provider keys, one row per UTC day (`condense_user_token_usage`), for the
 * spending guard (`gateway/spending-guard`). Only recent days are kept: the
 * guard reads today's alone.
 */

/** Days of counts kept (today and the days before it); older rows are dropped as new ones come. */
const DAYS_KEPT = 31;

/** The tokens spent on `day` (`YYYY-MM-DD`, UTC). */
export function tokensSpent(sql: SqlStorage, day: string): number {
  const row = sql
    .exec<{ tokens: number }>("SELECT tokens FROM condense_user_token_usage WHERE day = ?", day)
    .toArray()[0];
  return row?.tokens ?? 0;
}

/** Adds `tokens` to `day`'s count and drops the counts of days no longer kept. */
export function addTokens(sql: SqlStorage, day: string, tokens: number): void {
  sql.exec(
    `INSERT INTO condense_user_token_usage (day, tokens) VALUES (?, ?)
     ON CONFLICT (day) DO UPDATE SET tokens = tokens + excluded.tokens`,
    day,
    tokens,
  );
  sql.exec(
    `DELETE FROM condense_user_token_usage WHERE day NOT IN
       (SELECT day FROM condense_user_token_usage ORDER BY day DESC LIMIT ?)`,
    DAYS_KEPT,
  );
}
