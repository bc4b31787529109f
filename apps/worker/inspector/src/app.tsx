/**
 * @module app
 * The inspector's shell: the sign-in gate, then a header (sessions, memory,
 * sign out) over the view the location hash names. Signing out forgets the
 * key and every loaded view, and leaves the hash empty: nothing read with the
 * key stays on the page.
 */

import { useMemo, useState } from "preact/hooks";
import { inspectorClient } from "./api/inspector-client.ts";
import { clearToken, readToken, saveToken } from "./auth/token-store.ts";
import { ApiContext } from "./components/api-context.ts";
import { routeHash } from "./routing/route.ts";
import { useRoute } from "./routing/use-route.ts";
import { MemoryView } from "./views/memory-view.tsx";
import { SessionView } from "./views/session-view.tsx";
import { SessionsView } from "./views/sessions-view.tsx";
import { SignIn } from "./views/sign-in.tsx";

export function App() {
  const [token, setToken] = useState(readToken);
  const route = useRoute();
  const api = useMemo(() => (token === null ? null : inspectorClient(token)), [token]);

  if (api === null) {
    return (
      <SignIn
        onSignedIn={(accepted) => {
          saveToken(accepted);
          setToken(accepted);
        }}
      />
    );
  }

  const signOut = () => {
    clearToken();
    history.replaceState(null, "", window.location.pathname);
    setToken(null);
  };

  return (
    <ApiContext.Provider value={api}>
      <header class="top">
        <a class="brand" href={routeHash({ view: "sessions" })}>
          Condense inspector
        </a>
        <nav aria-label="Main">
          <a
            href={routeHash({ view: "sessions" })}
            aria-current={route.view !== "memory" ? "page" : undefined}
          >
            Sessions
          </a>
          <a
            href={routeHash({ view: "memory" })}
            aria-current={route.view === "memory" ? "page" : undefined}
          >
            Memory
          </a>
        </nav>
        <button type="button" class="sign-out" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        {route.view === "memory" ? (
          <MemoryView />
        ) : route.view === "session" ? (
          <SessionView key={route.id} route={route} />
        ) : (
          <SessionsView />
        )}
      </main>
    </ApiContext.Provider>
  );
}
