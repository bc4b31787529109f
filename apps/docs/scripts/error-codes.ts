/**
 * @module scripts/error-codes
 * The error-code table, from the Worker's `ERROR_CATALOG` (apps/worker/src/api/error-catalog.ts),
 * which its type keeps in step with the `ErrorCode` union.
 */

import { code, table } from "./markdown.ts";
import type { ErrorCodeEntry } from "./worker-source.ts";

export function errorCodesTable(catalog: Record<string, ErrorCodeEntry>): string {
  const rows = Object.entries(catalog)
    .sort(([a, x], [b, y]) => x.status.localeCompare(y.status) || a.localeCompare(b))
    .map(([name, entry]) => [entry.status, code(name), entry.when]);
  return table(["status", "code", "when"], rows);
}
