/**
 * @module views/sessions-view
 * The signed-in user's sessions (`GET /v1/sessions`), newest first, with
 * model, window use, messages, compactions and last activity; a filter by id,
 * and more pages on demand. Where the deployment has no list route yet, it
 * says so and offers the open-by-id box.
 */

import { useState } from "preact/hooks";
import { isRouteMissing } from "../api/client.ts";
import { readSessionList } from "../api/list-data.ts";
import type { SessionSummary } from "../api/types.ts";
import { useApi } from "../components/api-context.ts";
import { ErrorNote } from "../components/error-note.tsx";
import { useLoad } from "../components/use-load.ts";
import { formatShare, formatTime, formatTokens } from "../format.ts";
import { routeHash } from "../routing/route.ts";
import { OpenById } from "./open-by-id.tsx";

const PAGE = 50;

function WindowUse({ session }: { session: SessionSummary }) {
  if (session.tokens === null) return <span class="muted">—</span>;
  if (session.contextWindow === null) return <span>{formatTokens(session.tokens)} tokens</span>;
  const share = Math.min(1, session.tokens / session.contextWindow);
  return (
    <span class="window-use">
      <svg viewBox="0 0 100 8" width="64" height="8" aria-hidden="true" class="mini-bar">
        <rect width="100" height="8" class="track" />
        <rect width={(share * 100).toFixed(1)} height="8" class="fill" />
      </svg>
      {formatShare(session.tokens, session.contextWindow)} of {formatTokens(session.contextWindow)}
    </span>
  );
}

export function SessionsView() {
  const api = useApi();
  const [filter, setFilter] = useState("");
  const [extra, setExtra] = useState<{
    sessions: SessionSummary[];
    next: { param: string; value: string } | null;
  }>({ sessions: [], next: null });
  const [moreError, setMoreError] = useState<unknown>(null);
  const [first] = useLoad(async () => {
    setExtra({ sessions: [], next: null });
    return readSessionList(await api.get("/v1/sessions", { limit: PAGE }));
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

  const sessions = [...first.value.sessions, ...extra.sessions];
  const next = extra.sessions.length > 0 || extra.next !== null ? extra.next : first.value.next;
  const needle = filter.trim().toLowerCase();
  const shown =
    needle === "" ? sessions : sessions.filter((s) => s.id.toLowerCase().includes(needle));

  const loadMore = async () => {
    if (next === null) return;
    setMoreError(null);
    try {
      const page = readSessionList(
        await api.get("/v1/sessions", { limit: PAGE, [next.param]: next.value }),
      );
      setExtra((previous) => ({
        sessions: [...previous.sessions, ...page.sessions],
        next: page.next,
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
                <th scope="col">Window use</th>
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
                  <td>{session.model ?? "—"}</td>
                  <td>
                    <WindowUse session={session} />
                  </td>
                  <td class="num">
                    {session.messageCount === null ? "—" : formatTokens(session.messageCount)}
                  </td>
                  <td class="num">{session.compactions ?? "—"}</td>
                  <td>{formatTime(session.lastActiveAt ?? session.createdAt)}</td>
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
