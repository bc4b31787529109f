/**
 * @module components/error-note
 * A failed call said plainly: the API's message and code, what to do about
 * the common ones, and the request id to quote.
 */

import { CondenseApiError } from "@condense/client";

function advice(error: CondenseApiError): string | null {
  if (error.status === 401)
    return "The key was not accepted: sign out and sign in with a valid API key or JWT.";
  if (error.status === 503 && error.code === "auth_not_configured")
    return "This deployment has no users: set API_KEYS or JWT_SECRET.";
  if (error.status === 0) return "Check that the service is running and reachable.";
  return null;
}

export function ErrorNote({ error, what }: { error: unknown; what: string }) {
  if (!CondenseApiError.isInstance(error)) {
    return (
      <p class="note error" role="alert">
        {what} failed: {error instanceof Error ? error.message : String(error)}
      </p>
    );
  }
  const hint = advice(error);
  return (
    <div class="note error" role="alert">
      <p>
        {what} failed: {error.message} <code>{error.code}</code>
        {error.status > 0 ? ` (HTTP ${error.status})` : ""}
      </p>
      {hint === null ? null : <p>{hint}</p>}
      {error.requestId === null ? null : (
        <p class="muted">
          Request id <code>{error.requestId}</code>
        </p>
      )}
    </div>
  );
}
