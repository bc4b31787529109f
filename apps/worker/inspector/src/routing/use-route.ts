/**
 * @module routing/use-route
 * The current route, following the location hash (links, Back and Forward),
 * and a way to go somewhere else.
 */

import { useEffect, useState } from "preact/hooks";
import { parseRoute, type Route, routeHash } from "./route.ts";

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const follow = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, []);
  return route;
}

export function navigate(route: Route): void {
  window.location.hash = routeHash(route);
}
