// A receiver of a session's compaction events checks their signature (guides/compaction-events).
// #region snippet
import { createHmac, timingSafeEqual } from "node:crypto";

/** Whether `body` (the raw request body) was signed with `secret`, less than 5 minutes ago. */
export function verified(body: string, header: string, secret: string): boolean {
  const t = /t=(\d+)/.exec(header)?.[1];
  const v1 = /v1=([0-9a-f]{64})/.exec(header)?.[1];
  if (t === undefined || v1 === undefined) return false;
  if (Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
  return timingSafeEqual(Buffer.from(v1), Buffer.from(expected));
}
// #endregion
