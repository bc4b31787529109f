import { describe, expect, it } from "vitest";
import {
  type Scenario,
  scenarioBaseUrl,
  scenarioFromHeaders,
  scenarioFromModel,
  scenarioFromPath,
  scenarioHandler,
  scenarioHeaders,
  scenarioModel,
} from "./scenario.ts";
import { startTestServer } from "./server.ts";

describe("a scenario's wire forms", () => {
  it("travels as headers and comes back whole", () => {
    const scenario: Scenario = {
      name: "t-1",
      hold: true,
      limit: 4000,
      sumOverflow: true,
      scale: 3,
      inject: { tokens: 20_000, limit: 16_385 },
      fail: 529,
      fault: "stall",
      delayMs: 5,
      slowMs: 40,
      tool: "read_file",
      cache: { read: 100, write: 20 },
      prefixCache: true,
      bare: true,
    };
    expect(scenarioFromHeaders(scenarioHeaders(scenario))).toEqual(scenario);
  });

  it("sends only the name's header when nothing else is scripted", () => {
    expect(scenarioHeaders({ name: "t-2" })).toEqual({ "x-test-tag": "t-2" });
    expect(scenarioFromHeaders({})).toEqual({ name: "" });
  });

  it("reads the header scripts the gateway tests wrote by hand before", () => {
    expect(scenarioFromHeaders({ "x-test-upstream": "limit=6000;sum" })).toEqual({
      name: "",
      limit: 6000,
      sumOverflow: true,
    });
    expect(scenarioFromHeaders({ "x-test-upstream": "cached=100" }).cache).toEqual({
      read: 100,
      write: 0,
    });
  });

  it("travels as a model name and comes back whole", () => {
    expect(scenarioModel({ name: "tag-1", hold: true })).toBe("hold:tag-1");
    expect(scenarioModel({ name: "x", fail: 500 })).toBe("fail:500:x");
    expect(scenarioModel({ name: "", fail: 429 })).toBe("fail:429");
    expect(scenarioModel({ name: "flush", memory: true })).toBe("memory:flush");
    for (const scenario of [
      { name: "tag-1", hold: true },
      { name: "x", fail: 500 },
      { name: "", fail: 429 },
      { name: "flush", memory: true },
      { name: "items", malformed: true },
      { name: "gpt-4o" },
    ] satisfies Scenario[]) {
      expect(scenarioFromModel(scenarioModel(scenario))).toEqual(scenario);
    }
  });

  it("travels as a base path", () => {
    const url = scenarioBaseUrl("http://127.0.0.1:1", { name: "run a" });
    expect(url).toBe("http://127.0.0.1:1/run%20a");
    expect(scenarioFromPath(`${new URL(url).pathname}/v1/messages?beta=true`)).toEqual({
      name: "run a",
      rest: "/v1/messages?beta=true",
    });
  });
});

describe("scenarioHandler", () => {
  it("fails with the scenario's status, and answers as told otherwise", async () => {
    const server = await startTestServer(scenarioHandler({ fail: 503 }));
    try {
      const failed = await fetch(`${server.url}/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(failed.status).toBe(503);
      server.setHandler(
        scenarioHandler({ delayMs: 1 }, () => ({ type: "completion", content: "fine" })),
      );
      const answered = await fetch(`${server.url}/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(answered.status).toBe(200);
      expect(JSON.stringify(await answered.json())).toContain("fine");
    } finally {
      await server.close();
    }
  });
});
