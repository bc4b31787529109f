/**
 * @module views/recall-search
 * Search the session's whole past (`GET /v1/sessions/{id}/search`, BM25):
 * each match with its seq, role, tool and snippet, and whether it is still in
 * the context; a match links to its message in the transcript. Where the
 * service answers 404 (a deployment older than search), it says so.
 */

import { useState } from "preact/hooks";
import { isRouteMissing } from "../api/inspector-client.ts";
import type { SearchMatch } from "../api/types.ts";
import { useApi } from "../components/api-context.ts";
import { ErrorNote } from "../components/error-note.tsx";
import { snippetRuns } from "../model/snippet.ts";
import { routeHash } from "../routing/route.ts";

type Outcome =
  | { state: "idle" }
  | { state: "searching" }
  | { state: "done"; query: string; matches: SearchMatch[] }
  | { state: "missing" }
  | { state: "error"; error: unknown };

function Snippet({ text }: { text: string }) {
  return (
    <span class="snippet">
      {snippetRuns(text).map((run, i) => (run.marked ? <mark key={i}>{run.text}</mark> : run.text))}
    </span>
  );
}

export function RecallSearch({ sessionId }: { sessionId: string }) {
  const api = useApi();
  const [query, setQuery] = useState("");
  const [outcome, setOutcome] = useState<Outcome>({ state: "idle" });

  const search = async (event: Event) => {
    event.preventDefault();
    const q = query.trim();
    if (q === "") return;
    setOutcome({ state: "searching" });
    try {
      const { results } = await api.session(sessionId).search({ q, limit: 20 });
      setOutcome({ state: "done", query: q, matches: results });
    } catch (error) {
      // The session was just read, so a 404 here is the route's.
      setOutcome(isRouteMissing(error) ? { state: "missing" } : { state: "error", error });
    }
  };

  return (
    <section class="recall" aria-labelledby="recall-title">
      <h2 id="recall-title" class="visually-hidden">
        Search the transcript
      </h2>
      <form class="toolbar" onSubmit={search}>
        <label for="recall-query">Search the whole transcript</label>
        <input
          id="recall-query"
          type="search"
          value={query}
          autocomplete="off"
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
        <button type="submit" disabled={outcome.state === "searching"}>
          Search
        </button>
      </form>
      {outcome.state === "missing" ? (
        <p class="note" role="status">
          Search is not available on this deployment (<code>GET /v1/sessions/{"{id}"}/search</code>{" "}
          answers 404); page through the transcript instead.
        </p>
      ) : outcome.state === "error" ? (
        <ErrorNote error={outcome.error} what="Searching" />
      ) : outcome.state === "done" ? (
        outcome.matches.length === 0 ? (
          <p class="note" role="status">
            Nothing matches “{outcome.query}”.
          </p>
        ) : (
          <ol class="search-results" aria-label={`Matches for ${outcome.query}`}>
            {outcome.matches.map((match) => (
              <li key={`${match.seq}-${match.toolCallId ?? ""}`} data-seq={match.seq}>
                <a
                  href={routeHash({
                    view: "session",
                    id: sessionId,
                    tab: "transcript",
                    seq: match.seq,
                  })}
                >
                  #{match.seq} {match.role}
                  {match.toolName === null ? "" : ` · ${match.toolName}`}
                </a>{" "}
                <span class={`badge ${match.inContext ? "state-context" : "state-summarized"}`}>
                  {match.inContext ? "in context" : "compacted away"}
                </span>
                <div>
                  <Snippet text={match.snippet} />
                </div>
              </li>
            ))}
          </ol>
        )
      ) : null}
    </section>
  );
}
