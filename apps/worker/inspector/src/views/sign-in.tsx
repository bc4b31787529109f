/**
 * @module views/sign-in
 * The sign-in form: an API key or a JWT, checked against the API before it
 * is kept (in this tab's sessionStorage only). A refused key is said plainly
 * and kept nowhere.
 */

import { CondenseApiError } from "@condense/client";
import { useState } from "preact/hooks";
import { inspectorClient, isRouteMissing } from "../api/inspector-client.ts";

function refusal(error: unknown): string {
  if (CondenseApiError.isInstance(error)) {
    if (error.status === 401) {
      return `This key was not accepted (${error.message}). Check that you pasted the whole API key, or that the JWT is signed with this deployment's secret and has not expired.`;
    }
    if (error.status === 503 && error.code === "auth_not_configured") {
      return "This deployment has no users configured (neither API_KEYS nor JWT_SECRET is set), so no key can sign in.";
    }
    if (error.status === 0) return `The service did not answer: ${error.message}.`;
    return `The service refused the sign-in: ${error.message} (${error.code}, HTTP ${error.status}).`;
  }
  return `Sign-in failed: ${error instanceof Error ? error.message : String(error)}`;
}

export function SignIn({ onSignedIn }: { onSignedIn: (token: string) => void }) {
  const [token, setToken] = useState("");
  const [checking, setChecking] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    const candidate = token.trim();
    if (candidate === "") {
      setError("Enter an API key or a JWT.");
      return;
    }
    setChecking(true);
    setError(null);
    try {
      // Every /v1 route checks the key first: the list answers 200, or 404 where it is not deployed.
      await inspectorClient(candidate).sessions({ limit: 1 });
      onSignedIn(candidate);
    } catch (failure) {
      if (isRouteMissing(failure)) onSignedIn(candidate);
      else setError(refusal(failure));
    } finally {
      setChecking(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Condense inspector</h1>
      <p>
        See what your agents' contexts became: how full each window is, what every compaction kept
        and dropped, and where each tool output went.
      </p>
      <form onSubmit={submit} aria-describedby="sign-in-help">
        <label for="token">API key or JWT</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
          aria-invalid={error === null ? undefined : true}
          aria-describedby={error === null ? "sign-in-help" : "sign-in-error"}
        />
        <button type="submit" disabled={checking}>
          {checking ? "Checking…" : "Sign in"}
        </button>
        {error === null ? null : (
          <p id="sign-in-error" class="note error" role="alert">
            {error}
          </p>
        )}
      </form>
      <p id="sign-in-help" class="muted">
        The key stays in this browser tab (sessionStorage) and is sent only to this service's API.
        You see exactly what the key can read. Locally, <code>pnpm start</code> prints one.
      </p>
    </main>
  );
}
