/**
 * @module model/field-errors
 * Puts an API validation error next to the form field it is about. The API
 * names the field in `details.issues[].path` (schema errors: `threshold`,
 * `pinned[0].role`) or `details.problems[].path` (the engine's message
 * problems); an error naming no known field stays with the form as a whole.
 * The message shown is always the API's own.
 */

export interface FieldErrors {
  byField: Record<string, string>;
  /** What no field can show (or null). */
  general: string | null;
}

interface Located {
  path: string;
  message: string;
}

function located(list: unknown): Located[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item) => {
    if (typeof item !== "object" || item === null) return [];
    const { path, message } = item as { path?: unknown; message?: unknown };
    return typeof path === "string" && typeof message === "string" ? [{ path, message }] : [];
  });
}

/** The field a path starts with: `pinned[0].role` → `pinned`, `options.threshold` → `options`. */
function head(path: string): string {
  return /^[^.[]*/.exec(path)?.[0] ?? "";
}

export function fieldErrors(
  error: { code: string; message: string; details: unknown },
  fields: readonly string[],
  /** The field the engine's message problems are about (pinned messages). */
  messagesField?: string,
): FieldErrors {
  const details = typeof error.details === "object" && error.details !== null ? error.details : {};
  const byField: Record<string, string> = {};
  for (const issue of located((details as { issues?: unknown }).issues)) {
    const field = head(issue.path);
    if (fields.includes(field) && byField[field] === undefined) {
      byField[field] = issue.path === field ? issue.message : `${issue.path}: ${issue.message}`;
    }
  }
  const problems = located((details as { problems?: unknown }).problems);
  if (messagesField !== undefined && problems.length > 0) {
    byField[messagesField] = problems.map((p) => `${p.path}: ${p.message}`).join("; ");
  }
  if (Object.keys(byField).length === 0) {
    // An error about one setting may name it only in its message (`contextWindow …`).
    const named = fields.find((field) =>
      new RegExp(`(^|[^A-Za-z])${field}([^A-Za-z]|$)`).test(error.message),
    );
    if (named !== undefined) return { byField: { [named]: error.message }, general: null };
    return { byField, general: error.message };
  }
  return { byField, general: null };
}
