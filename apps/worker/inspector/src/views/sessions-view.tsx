/**
 * @module views/sessions-view
 * The signed-in user's sessions (`GET /v1/sessions`), newest first, with
 * model, context tokens, messages, compactions and last activity; a filter by
 * id, and more pages on demand. Where the service answers the list with 404
 * (a deployment older than the list route), it says so and offers the
 * open-by-id box.
 */

import { useState } from "preact/hooks";
import { isRouteMissing } from "../api/inspector-client.ts";
import { readSessionPage } from "../api/list-data.ts";
import type { SessionListPage } from "../api/types.ts";
import { useApi } from "../components/api-context.ts";
import { ErrorNote } from "../components/error-note.tsx";
import { useLoad } from "../components/use-load.ts";
import { formatTime, formatTokens } from "../format.ts";
import { routeHash } from "../routing/route.ts";
import { OpenById } from "./open-by-id.tsx";

export function SessionsView() {
  const api = useApi();
  const [filter, setFilter] = useState("");
  // The pages loaded after the first (null: none yet), with the cursor of the next (null at the end).
  const [extra, setExtra] = useState<SessionListPage | null>(null);
  const [moreError, setMoreError] = useState<unknown>(null);
  const [first] = useLoad(() => {
    setExtra(null);
    return readSessionPage(api);
  }, [api]);

  if (first.state === "loading") return <p aria-busy="true">Loading sessions…</p>;
  if (first.state === "error") {
    if (isRouteMissing(first.error)) {
      return (
        <section aria-labelledby="sessions-title">
          <h1 id="sessions-title">Sessions</h1>
          <p class="note" role="status">
            The session list is not available on this deployment (<code>GET /v1/sessions</code>{" "}
            answers 404): open a session by its id.
          </p>
          <OpenById />
        </section>
      );
    }
    return (
      <section aria-labelledby="sessions-title">
        <h1 id="sessions-title">Sessions</h1>
        <ErrorNote error={first.error} what="Loading the session list" />
        <OpenById />
      </section>
    );
  }

  const sessions = [...first.value.sessions, ...(extra?.sessions ?? [])];
  const next = (extra ?? first.value).nextCursor;
  const needle = filter.trim().toLowerCase();
  const shown =
    needle === "" ? sessions : sessions.filter((s) => s.id.toLowerCase().includes(needle));

  const loadMore = async () => {
    if (next === null) return;
    setMoreError(null);
    try {
      const page = await readSessionPage(api, next);
      setExtra((previous) => ({
        sessions: [...(previous?.sessions ?? []), ...page.sessions],
        nextCursor: page.nextCursor,
      }));
    } catch (error) {
      setMoreError(error);
    }
  };

  return (
    <section aria-labelledby="sessions-title">
      <h1 id="sessions-title">Sessions</h1>
      <div class="toolbar">
        <label for="session-filter">Filter by id</label>
        <input
          id="session-filter"
          type="search"
          value={filter}
          autocomplete="off"
          onInput={(e) => setFilter(e.currentTarget.value)}
        />
        <span class="muted" role="status">
          {shown.length} of {sessions.length}
          {next === null ? "" : "+"} sessions
        </span>
      </div>
      {sessions.length === 0 ? (
        <p class="note">No sessions yet: append messages to one and it shows here.</p>
      ) : (
        <div class="table-scroll">
          <table class="sessions">
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Model</th>
                <th scope="col" class="num">
                  Context tokens
                </th>
                <th scope="col" class="num">
                  Messages
                </th>
                <th scope="col" class="num">
                  Compactions
                </th>
                <th scope="col">Last active</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((session) => (
                <tr key={session.id}>
                  <th scope="row">
                    <a href={routeHash({ view: "session", id: session.id, tab: "overview" })}>
                      {session.id}
                    </a>
                  </th>
                  <td>{session.model}</td>
                  <td class="num">{formatTokens(session.tokens)}</td>
                  <td class="num">{formatTokens(session.messageCount)}</td>
                  <td class="num">{session.compactions}</td>
                  <td>{formatTime(session.lastActiveAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next === null ? null : (
        <button type="button" onClick={() => void loadMore()}>
          Load more sessions
        </button>
      )}
      {moreError === null ? null : <ErrorNote error={moreError} what="Loading more sessions" />}
      <OpenById />
    </section>
  );
}
