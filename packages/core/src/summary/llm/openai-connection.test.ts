import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../../errors/condense-error.js";
import { contextWindowFor } from "../../models/context-window.js";
import { openConnection } from "./openai-connection.js";

const defaults = { role: "memory flush", maxRetries: 0 };

describe("openConnection", () => {
  it("gives an answer the caller's default room, never more than half the window", () => {
    const open = (maxOutputTokens: number | undefined, fallback?: number) =>
      openConnection(
        { apiKey: "k", model: "m", contextWindow: 10_000, maxOutputTokens },
        fallback === undefined ? defaults : { ...defaults, maxOutputTokens: fallback },
      ).maxOutputTokens;
    expect(open(undefined)).toBe(5000);
    expect(open(undefined, 2000)).toBe(2000);
    expect(open(undefined, 8000)).toBe(5000);
    expect(open(9000, 2000)).toBe(5000);
    expect(open(1500.7, 2000)).toBe(1500);
  });

  it("reads the window from the option, else from the model table", () => {
    const own = openConnection({ apiKey: "k", model: "m", contextWindow: 4096.9 }, defaults);
    expect(own.window).toBe(4096);
    expect(own.margin).toBe(205);
    const known = openConnection({ apiKey: "k", model: "gpt-4o" }, defaults);
    expect(known.window).toBe(contextWindowFor("gpt-4o"));
    expect(known.maxTokensParameter).toBe("max_tokens");
  });

  it("names the option that is wrong, and who it is for", () => {
    const reject = (options: unknown): InvalidOptionsError => {
      try {
        openConnection(options as never, defaults);
      } catch (error) {
        if (InvalidOptionsError.isInstance(error)) return error;
        throw error;
      }
      throw new Error("expected openConnection to throw");
    };
    expect(reject(null).message).toContain("{ apiKey, model }");
    expect(reject({ apiKey: "k", model: " " }).message).toContain("memory flush model name");
    expect(reject({ apiKey: "", model: "m" }).message).toContain("`apiKey`");
    expect(reject({ apiKey: "k", model: "m", timeoutMs: -1 }).message).toContain("`timeoutMs`");
    expect(reject({ apiKey: "k", model: "m", maxRetries: 1.5 }).message).toContain("`maxRetries`");
  });
});
