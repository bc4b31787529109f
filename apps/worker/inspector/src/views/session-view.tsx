/**
 * @module views/session-view
 * One session: its status first (`GET /v1/sessions/{id}`), then the tab the
 * route names (overview, summaries, transcript, settings). A session the key
 * cannot read, whether it never existed or belongs to someone else, is "not
 * found" and nothing else: the API answers 404 for both, and no other call is
 * made.
 */

import { CondenseApiError } from "@condense/client";
import { useApi } from "../components/api-context.ts";
import { ErrorNote } from "../components/error-note.tsx";
import { useLoad } from "../components/use-load.ts";
import { routeHash, SESSION_TABS, type SessionTab } from "../routing/route.ts";
import { OpenById } from "./open-by-id.tsx";
import { OverviewTab } from "./overview-tab.tsx";
import { SettingsTab } from "./settings-tab.tsx";
import { SummariesTab } from "./summaries-tab.tsx";
import type { SessionRoute, TabProps } from "./tab-props.ts";
import { TranscriptTab } from "./transcript-tab.tsx";

const TAB_LABELS: Record<SessionTab, string> = {
  overview: "Overview",
  summaries: "Summaries",
  transcript: "Transcript",
  settings: "Settings",
};

function NotFound({ id, error }: { id: string; error: CondenseApiError }) {
  return (
    <section aria-labelledby="session-title">
      <h1 id="session-title">Session not found</h1>
      <p class="note" role="alert">
        No session <code>{id}</code> can be read with this key ({error.message}). Sessions belong to
        the user whose key created them; another user's session does not exist for you.
      </p>
      <OpenById />
    </section>
  );
}

export function SessionView({ route }: { route: SessionRoute }) {
  const api = useApi();
  const [status, reload] = useLoad(async () => api.session(route.id).status(), [api, route.id]);

  if (status.state === "loading") return <p aria-busy="true">Loading session {route.id}…</p>;
  if (status.state === "error") {
    const { error } = status;
    if (CondenseApiError.isInstance(error) && error.status === 404)
      return <NotFound id={route.id} error={error} />;
    return (
      <section aria-labelledby="session-title">
        <h1 id="session-title">Session {route.id}</h1>
        <ErrorNote error={error} what="Loading the session" />
        <OpenById />
      </section>
    );
  }

  const props: TabProps = { route, status: status.value, reloadStatus: reload };
  return (
    <section aria-labelledby="session-title" class="session">
      <div class="session-head">
        <h1 id="session-title">
          <span class="muted">Session</span> <code>{route.id}</code>
        </h1>
        <p class="muted">
          {status.value.model} · {status.value.messageCount} messages · {status.value.compactions}{" "}
          compactions
        </p>
      </div>
      <nav class="tabs" aria-label="Session views">
        {SESSION_TABS.map((tab) => (
          <a
            key={tab}
            href={routeHash({ view: "session", id: route.id, tab })}
            aria-current={route.tab === tab ? "page" : undefined}
          >
            {TAB_LABELS[tab]}
          </a>
        ))}
      </nav>
      {route.tab === "overview" ? (
        <OverviewTab {...props} />
      ) : route.tab === "summaries" ? (
        <SummariesTab {...props} />
      ) : route.tab === "transcript" ? (
        <TranscriptTab {...props} />
      ) : (
        <SettingsTab {...props} />
      )}
    </section>
  );
}
