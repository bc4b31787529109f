/**
 * @module routing/route
 * The inspector's places, kept in the URL's hash so a view can be linked,
 * reloaded and navigated with Back: `#/sessions`, `#/memory`, and
 * `#/s/<session id>/<tab>?after=&seq=&compare=` for one session. The hash never
 * reaches the server, and holds no data: opening a link still needs a key
 * that can read the session.
 */

export const SESSION_TABS = ["overview", "summaries", "transcript", "settings"] as const;
export type SessionTab = (typeof SESSION_TABS)[number];

export type Route =
  | { view: "sessions" }
  | { view: "memory" }
  | {
      view: "session";
      id: string;
      tab: SessionTab;
      /** Transcript: the page after this seq. */
      after?: number;
      /** Transcript: the message to show and focus. */
      seq?: number;
      /** Summaries: the compaction whose summary is compared with the one before it. */
      compare?: number;
    };

const SESSIONS: Route = { view: "sessions" };

function isTab(value: string | undefined): value is SessionTab {
  return (SESSION_TABS as readonly string[]).includes(value ?? "");
}

function wholeNumber(value: string | null): number | undefined {
  if (value === null || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}

/** The route of a location hash; anything unknown or malformed is the session list. */
export function parseRoute(hash: string): Route {
  const raw = hash.startsWith("#") ? hash.slice(1) : hash;
  const queryAt = raw.indexOf("?");
  const path = queryAt === -1 ? raw : raw.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? "" : raw.slice(queryAt + 1));
  const parts = path.split("/").filter((part) => part !== "");
  if (parts[0] === "memory" && parts.length === 1) return { view: "memory" };
  if (parts[0] !== "s" || parts.length < 2 || parts.length > 3) return SESSIONS;
  let id: string;
  try {
    id = decodeURIComponent(parts[1] ?? "");
  } catch {
    return SESSIONS;
  }
  if (id === "") return SESSIONS;
  const tab = parts[2] ?? "overview";
  if (!isTab(tab)) return SESSIONS;
  const route: Route = { view: "session", id, tab };
  const after = wholeNumber(query.get("after"));
  const seq = wholeNumber(query.get("seq"));
  const compare = wholeNumber(query.get("compare"));
  if (after !== undefined) route.after = after;
  if (seq !== undefined) route.seq = seq;
  if (compare !== undefined) route.compare = compare;
  return route;
}

/** The hash that `parseRoute` reads back as `route`. */
export function routeHash(route: Route): string {
  if (route.view === "sessions") return "#/sessions";
  if (route.view === "memory") return "#/memory";
  const query = new URLSearchParams();
  if (route.after !== undefined) query.set("after", String(route.after));
  if (route.seq !== undefined) query.set("seq", String(route.seq));
  if (route.compare !== undefined) query.set("compare", String(route.compare));
  const search = query.toString();
  return `#/s/${encodeURIComponent(route.id)}/${route.tab}${search === "" ? "" : `?${search}`}`;
}
