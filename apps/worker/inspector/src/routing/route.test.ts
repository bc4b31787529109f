import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseRoute, type Route, routeHash, SESSION_TABS } from "./route.ts";

const sessionRoute = fc.record(
  {
    view: fc.constant("session" as const),
    id: fc.string({ minLength: 1, maxLength: 128, unit: "grapheme" }),
    tab: fc.constantFrom(...SESSION_TABS),
    after: fc.nat(),
    seq: fc.nat(),
    compare: fc.nat(),
  },
  { requiredKeys: ["view", "id", "tab"] },
);

describe("routes in the hash", () => {
  it("reads back every route it writes, whatever the session id holds", () => {
    fc.assert(
      fc.property(sessionRoute, (route) => {
        expect(parseRoute(routeHash(route))).toEqual(route);
      }),
    );
    for (const route of [{ view: "sessions" }, { view: "memory" }] as Route[]) {
      expect(parseRoute(routeHash(route))).toEqual(route);
    }
  });

  it("keeps an id's slashes, question marks and percent signs inside the id", () => {
    const route: Route = { view: "session", id: "a/b?c=%41#x", tab: "transcript", seq: 7 };
    expect(routeHash(route)).toBe("#/s/a%2Fb%3Fc%3D%2541%23x/transcript?seq=7");
    expect(parseRoute(routeHash(route))).toEqual(route);
  });

  it("opens the overview when the tab is left out", () => {
    expect(parseRoute("#/s/run-42")).toEqual({ view: "session", id: "run-42", tab: "overview" });
  });

  it("falls back to the session list for anything it does not know", () => {
    for (const hash of [
      "",
      "#",
      "#/",
      "#/nope",
      "#/s/",
      "#/s/x/secrets",
      "#/s/%E0%A4%A/overview",
      "#/s/a/b/c",
    ]) {
      expect(parseRoute(hash), hash).toEqual({ view: "sessions" });
    }
  });

  it("ignores numbers that are not whole and non-negative", () => {
    expect(parseRoute("#/s/x/transcript?seq=-1&after=1.5&compare=abc")).toEqual({
      view: "session",
      id: "x",
      tab: "transcript",
    });
  });
});
