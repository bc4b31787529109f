import { describe, expect, it } from "vitest";
import {
  ConfigError,
  DEFAULT_GATEWAY_TIMEOUT_MS,
  DEFAULT_WORKERS_AI_MODEL,
  parseWorkerConfig,
  workerConfig,
} from "./worker-config";

const env = (vars: Record<string, unknown>) => vars as unknown as Env;

/** The variable a bad configuration names, or undefined when it parses. */
function badVariable(vars: Record<string, unknown>): string | undefined {
  try {
    parseWorkerConfig(env(vars));
    return undefined;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    expect(error.message).toContain(error.variable);
    return error.variable;
  }
}

describe("parseWorkerConfig", () => {
  it("gives every variable its default when nothing is set, blank counting as unset", () => {
    const config = parseWorkerConfig(env({ GATEWAY_UPSTREAMS: "", CORS_ORIGINS: "  " }));
    expect(config).toMatchObject({
      cooldownSeconds: 600,
      compactionDelayMs: 0,
      sessionListReportMs: 5000,
      sessionRetentionMs: undefined,
      corsOrigins: [],
      openaiBaseUrl: "https://api.openai.com/v1",
      anthropicBaseUrl: "https://api.anthropic.com",
      gatewayTimeoutMs: DEFAULT_GATEWAY_TIMEOUT_MS,
      summarizer: { kind: "extractive" },
    });
    expect([...config.gatewayUpstreams]).toEqual([]);
  });

  it("reads retention in days, decimals allowed, and 0 as forever", () => {
    expect(parseWorkerConfig(env({ SESSION_RETENTION_DAYS: "0.5" })).sessionRetentionMs).toBe(
      43_200_000,
    );
    expect(parseWorkerConfig(env({ SESSION_RETENTION_DAYS: "0" })).sessionRetentionMs).toBe(
      undefined,
    );
  });

  it("reads origins and upstreams as lists", () => {
    const config = parseWorkerConfig(
      env({
        CORS_ORIGINS: "https://app.example.com, http://localhost:5173",
        GATEWAY_UPSTREAMS: "Groq=https://api.groq.com/openai/v1/\nlocal=http://127.0.0.1:8080/v1",
      }),
    );
    expect(config.corsOrigins).toEqual(["https://app.example.com", "http://localhost:5173"]);
    expect([...config.gatewayUpstreams]).toEqual([
      ["groq", "https://api.groq.com/openai/v1"],
      ["local", "http://127.0.0.1:8080/v1"],
    ]);
  });

  it("chooses the summarizer: OpenAI-compatible when its URL or key is set, Workers AI when asked", () => {
    expect(parseWorkerConfig(env({ SUMMARIZER_API_KEY: "k" })).summarizer).toEqual({
      kind: "openai",
      baseURL: undefined,
      apiKey: "k",
      model: "gpt-4o-mini",
    });
    const ai = { run: async () => ({}) };
    expect(parseWorkerConfig(env({ SUMMARIZER: "workers-ai", AI: ai })).summarizer).toMatchObject({
      kind: "workers-ai",
      model: DEFAULT_WORKERS_AI_MODEL,
    });
    expect(
      parseWorkerConfig(env({ SUMMARIZER: "workers-ai", SUMMARIZER_MODEL: "@cf/x/y", AI: ai }))
        .summarizer,
    ).toMatchObject({ kind: "workers-ai", model: "@cf/x/y" });
  });

  it("reads the spending cap and the JWT settings, 0 and blank meaning none", () => {
    expect(
      parseWorkerConfig(env({ GATEWAY_USER_TOKENS_PER_DAY: "0" })).gatewayUserTokensPerDay,
    ).toBe(undefined);
    expect(
      parseWorkerConfig(
        env({
          GATEWAY_USER_TOKENS_PER_DAY: " 250000 ",
          JWT_JWKS_URL: "https://example.auth0.com/.well-known/jwks.json",
          JWT_ISSUER: "https://example.auth0.com/",
          JWT_AUDIENCE: " ",
        }),
      ),
    ).toMatchObject({
      gatewayUserTokensPerDay: 250_000,
      jwtJwksUrl: "https://example.auth0.com/.well-known/jwks.json",
      jwtIssuer: "https://example.auth0.com/",
      jwtAudience: undefined,
    });
    expect(badVariable({ GATEWAY_USER_TOKENS_PER_DAY: "1e6 tokens" })).toBe(
      "GATEWAY_USER_TOKENS_PER_DAY",
    );
    expect(badVariable({ GATEWAY_USER_TOKENS_PER_DAY: "-5" })).toBe("GATEWAY_USER_TOKENS_PER_DAY");
    expect(badVariable({ JWT_JWKS_URL: "example.auth0.com/jwks" })).toBe("JWT_JWKS_URL");
  });

  it("names the bad variable instead of falling back to a default", () => {
    expect(badVariable({ COOLDOWN_SECONDS: "ten minutes" })).toBe("COOLDOWN_SECONDS");
    expect(badVariable({ COMPACTION_DELAY_MS: "-1" })).toBe("COMPACTION_DELAY_MS");
    expect(badVariable({ SESSION_RETENTION_DAYS: "forever" })).toBe("SESSION_RETENTION_DAYS");
    expect(badVariable({ SESSION_RETENTION_DAYS: "-2" })).toBe("SESSION_RETENTION_DAYS");
    expect(badVariable({ GATEWAY_TIMEOUT_MS: "0" })).toBe("GATEWAY_TIMEOUT_MS");
    expect(badVariable({ OPENAI_BASE_URL: "api.openai.com" })).toBe("OPENAI_BASE_URL");
    expect(badVariable({ GATEWAY_UPSTREAMS: "up=https://x.test, broken" })).toBe(
      "GATEWAY_UPSTREAMS",
    );
    expect(badVariable({ CORS_ORIGINS: "https://app.example.com/" })).toBe("CORS_ORIGINS");
    expect(badVariable({ CORS_ORIGINS: "*" })).toBe("CORS_ORIGINS");
    expect(badVariable({ SUMMARIZER: "claude" })).toBe("SUMMARIZER");
    // Workers AI without its binding, OpenAI without an endpoint or key.
    expect(badVariable({ SUMMARIZER: "workers-ai" })).toBe("SUMMARIZER");
    expect(badVariable({ SUMMARIZER: "openai" })).toBe("SUMMARIZER");
    expect(badVariable({ COOLDOWN_SECONDS: "60" })).toBeUndefined();
  });

  it("never echoes a variable's value", () => {
    try {
      parseWorkerConfig(env({ SUMMARIZER_BASE_URL: "sk-not-a-url-4711" }));
      expect.unreachable();
    } catch (error) {
      expect(String(error)).toContain("SUMMARIZER_BASE_URL");
      expect(String(error)).not.toContain("4711");
    }
  });
});

describe("workerConfig", () => {
  it("parses once per env object and throws the same error for a bad one every time", () => {
    const good = env({ COOLDOWN_SECONDS: "5" });
    expect(workerConfig(good)).toBe(workerConfig(good));
    const bad = env({ COOLDOWN_SECONDS: "x" });
    let first: unknown;
    try {
      workerConfig(bad);
    } catch (error) {
      first = error;
    }
    expect(first).toBeInstanceOf(ConfigError);
    expect(() => workerConfig(bad)).toThrow(first as Error);
  });
});
