/**
 * @module views/tab-props
 * What the session view hands each of its tabs: the route (session and tab),
 * the session's status, and a way to reload it after a change. Its own module
 * so the tabs and the view that holds them do not import each other.
 */

import type { SessionStatus } from "../api/types.ts";
import type { Route } from "../routing/route.ts";

export type SessionRoute = Extract<Route, { view: "session" }>;

export interface TabProps {
  route: SessionRoute;
  status: SessionStatus;
  reloadStatus: () => void;
}
