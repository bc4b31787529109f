import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { migrate } from "./schema";
import { DEFAULT_SETTINGS, modelFor, readSettings, writeSettings } from "./settings";

/** A fresh, never-used session object to borrow storage from. */
function freshObject() {
  return env.SESSIONS.get(env.SESSIONS.idFromName(`settings-test-${crypto.randomUUID()}`));
}

describe("settings storage", () => {
  it("reads defaults, stores changes, keeps left-out fields and resets with null", async () => {
    const reads = await runInDurableObject(freshObject(), (_instance, state) => {
      migrate(state.storage);
      const sql = state.storage.sql;
      const initial = readSettings(sql);
      writeSettings(sql, {
        model: "claude-sonnet-4",
        threshold: 0.5,
        pinned: [{ role: "user", content: "pinned" }],
        strategy: "openai",
      });
      const changed = readSettings(sql);
      writeSettings(sql, { model: null, threshold: undefined });
      const reset = readSettings(sql);
      // A key this code does not know (written by other code) is ignored, not surfaced.
      sql.exec("INSERT INTO condense_settings (key, value) VALUES ('unknown', '1')");
      return { initial, changed, reset, later: readSettings(sql) };
    });
    expect(reads.initial).toEqual(DEFAULT_SETTINGS);
    expect(reads.changed).toEqual({
      ...DEFAULT_SETTINGS,
      model: "claude-sonnet-4",
      threshold: 0.5,
      pinned: [{ role: "user", content: "pinned" }],
      strategy: "openai",
    });
    expect(reads.reset.model).toBeNull();
    expect(reads.reset.threshold).toBe(0.5);
    expect(reads.later).toEqual(reads.reset);
  });
});

describe("modelFor", () => {
  it("prefers the setting, then the last append's model, then the deployment default", () => {
    const named = { ...DEFAULT_SETTINGS, model: "set" };
    expect(modelFor(named, "last", "default")).toBe("set");
    expect(modelFor(DEFAULT_SETTINGS, "last", "default")).toBe("last");
    expect(modelFor(DEFAULT_SETTINGS, null, "default")).toBe("default");
    expect(modelFor(DEFAULT_SETTINGS, null, undefined)).toBe("gpt-4o");
  });
});
