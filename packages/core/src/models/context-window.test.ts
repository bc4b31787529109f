import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CondenseError, InvalidOptionsError } from "../errors/condense-error.js";
import { contextWindowFor, DEFAULT_CONTEXT_WINDOW, parseContextWindow } from "./context-window.js";

describe("contextWindowFor", () => {
  const rows: Array<[model: string, tokens: number]> = [
    // OpenAI
    ["gpt-5", 272_000],
    ["gpt-5-mini", 272_000],
    ["gpt-5-nano-2025-08-07", 272_000],
    ["gpt-5-pro", 272_000],
    ["gpt-5.1", 272_000],
    ["gpt-5.1-codex", 272_000],
    ["gpt-5.2", 272_000],
    ["gpt-5-chat-latest", 128_000],
    ["gpt-5.1-chat-latest", 128_000],
    ["gpt-4.1", 1_047_576],
    ["gpt-4.1-mini-2025-04-14", 1_047_576],
    ["gpt-4o", 128_000],
    ["gpt-4o-2024-08-06", 128_000],
    ["gpt-4o-mini", 128_000],
    ["chatgpt-4o-latest", 128_000],
    ["o1", 200_000],
    ["o1-mini", 128_000],
    ["o3", 200_000],
    ["o3-mini", 200_000],
    ["o4-mini", 200_000],
    ["gpt-4-turbo", 128_000],
    ["gpt-4-1106-preview", 128_000],
    ["gpt-4-32k", 32_768],
    ["gpt-4", 8_192],
    ["gpt-4-0613", 8_192],
    ["gpt-3.5-turbo", 16_385],
    ["gpt-3.5-turbo-0125", 16_385],
    ["gpt-3.5-turbo-0613", 4_096],
    ["gpt-3.5-turbo-instruct", 4_096],
    ["gpt-oss-120b", 131_072],
    // the catalog's smaller windows of models inside a larger family
    ["gpt-5.3-chat-latest", 128_000],
    ["gpt-5.3-codex-spark", 128_000],
    ["gpt-4o-realtime-preview-2025-06-03", 32_000],
    ["gpt-4o-mini-realtime-preview", 16_000],
    ["text-embedding-3-small", 8_192],
    // provider prefixes and tags do not change the answer
    ["openai/gpt-4o", 128_000],
    ["azure/gpt-4.1", 1_047_576],
    ["openrouter/openai/gpt-5", 272_000],
    ["ft:gpt-4o-mini-2024-07-18:acme::abc", 128_000],
    // Anthropic
    ["claude-opus-4-1-20250805", 200_000],
    ["claude-sonnet-4-5", 200_000],
    ["claude-sonnet-4-20250514", 200_000],
    ["claude-haiku-4-5", 200_000],
    ["claude-3-7-sonnet-latest", 200_000],
    ["claude-3-5-haiku-20241022", 200_000],
    ["claude-3-opus-20240229", 200_000],
    ["anthropic/claude-3.5-sonnet", 200_000],
    ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", 200_000],
    ["claude-2.1", 200_000],
    ["claude-2.0", 100_000],
    ["claude-instant-1.2", 100_000],
    // Google
    ["gemini-2.5-pro", 1_048_576],
    ["gemini-2.5-flash", 1_048_576],
    ["gemini-2.0-flash", 1_048_576],
    ["gemini-3-pro-preview", 1_048_576],
    ["models/gemini-1.5-pro-002", 2_097_152],
    ["gemini-1.5-flash", 1_048_576],
    ["gemma-3-27b-it", 131_072],
    ["gemini-live-2.5-flash-preview", 128_000],
    ["gemini-2.5-flash-preview-tts", 8_192],
    // Meta
    ["llama-3.3-70b-versatile", 128_000],
    ["@cf/meta/llama-3.3-70b-instruct-fp8-fast", 128_000],
    ["meta-llama/Meta-Llama-3.1-405B-Instruct", 128_000],
    ["llama3.2:3b", 128_000],
    ["llama3-70b-8192", 8_192],
    ["meta-llama/llama-4-scout-17b-16e-instruct", 128_000],
    ["llama-4-maverick", 128_000],
    ["llama-2-70b-chat", 4_096],
    // DeepSeek
    ["deepseek-chat", 128_000],
    ["deepseek-reasoner", 128_000],
    ["deepseek-ai/DeepSeek-V3", 128_000],
    // Qwen
    ["qwen2.5-72b-instruct", 32_768],
    ["qwen/qwen-2.5-coder-32b-instruct", 32_768],
    ["qwen3-32b", 32_768],
    ["qwen3-coder-480b-a35b-instruct", 262_144],
    ["qwen3-235b-a22b-instruct-2507", 262_144],
    ["qwen-plus", 129_024],
    ["qwen-turbo", 129_024],
    ["qwen-max", 30_720],
    ["qwen3-max", 258_048],
    ["qwen3-max-2025-09-23", 258_048],
    ["qwq-32b", 131_072],
    // GLM
    ["glm-4-plus", 128_000],
    ["glm-4.5", 128_000],
    ["glm-4.5-air", 128_000],
    ["z-ai/glm-4.6", 200_000],
    ["glm-4.6v", 128_000],
    ["zai/glm-4.6v-flash", 128_000],
    ["glm-4.5v", 64_000],
    ["glm-4v-plus", 8_192],
    ["glm-4-airx", 8_192],
    ["glm-4-air", 128_000],
    // Mistral
    ["mistral-large-latest", 128_000],
    ["mistral-large-2411", 128_000],
    ["mistral-medium-2505", 128_000],
    ["mistral-small-latest", 128_000],
    ["mistral-small-2402", 32_000],
    ["codestral-latest", 128_000],
    ["codestral-2405", 32_000],
    ["open-mistral-nemo", 128_000],
    ["open-mixtral-8x7b", 32_000],
    ["open-mixtral-8x22b", 64_000],
    ["open-mistral-7b", 32_000],
    ["magistral-medium-latest", 40_000],
    // xAI
    ["grok-2-vision", 8_192],
    ["grok-2-vision-1212", 8_192],
    ["xai/grok-2-vision-latest", 8_192],
    ["grok-vision-beta", 8_192],
    ["grok-beta", 131_072],
    ["grok-2-1212", 131_072],
    ["grok-3", 131_072],
    ["grok-3-mini-fast", 131_072],
    ["grok-4", 256_000],
    ["grok-4-0709", 256_000],
    ["grok-4-fast-reasoning", 2_000_000],
    ["grok-4-1-fast-non-reasoning", 2_000_000],
    ["x-ai/grok-4.1-fast", 2_000_000],
    ["grok-code-fast-1", 256_000],
    // unknown
    ["my-finetune", DEFAULT_CONTEXT_WINDOW],
    ["", DEFAULT_CONTEXT_WINDOW],
  ];
  for (const [model, tokens] of rows) {
    it(`${JSON.stringify(model)} → ${tokens}`, () => {
      expect(contextWindowFor(model)).toBe(tokens);
    });
  }

  it("never lets a family prefix swallow a sibling with a smaller window", () => {
    // Each pair: a model whose name starts with another table key, and that key's model.
    const collisions: Array<[longer: string, shorter: string]> = [
      ["glm-4.6v", "glm-4.6"],
      ["glm-4.5v", "glm-4.5"],
      ["glm-4v-plus", "glm-4-plus"],
      ["glm-4-airx", "glm-4-air"],
      ["grok-2-vision-1212", "grok-2-1212"],
      ["grok-4-fast", "grok-4"],
      ["gpt-5-chat-latest", "gpt-5"],
      ["qwen3-max", "qwen3"],
    ];
    for (const [longer, shorter] of collisions) {
      expect(contextWindowFor(longer), `${longer} vs ${shorter}`).not.toBe(
        contextWindowFor(shorter),
      );
    }
    expect(contextWindowFor("glm-4.6v")).toBeLessThan(contextWindowFor("glm-4.6"));
    expect(contextWindowFor("grok-2-vision")).toBeLessThan(contextWindowFor("grok-2"));
  });

  it("counts what a request may send, not the input plus output the provider advertises", () => {
    // GPT-5 advertises 400k, of which at most 272k are input; a 300k-token request is rejected.
    expect(contextWindowFor("gpt-5")).toBeLessThan(300_000);
    expect(contextWindowFor("gpt-5.2-codex")).toBe(272_000);
  });

  it("defaults to a conservative 128k", () => {
    expect(DEFAULT_CONTEXT_WINDOW).toBe(128_000);
  });

  it("lets overrides win, by longest prefix, in any spelling", () => {
    const overrides = { "claude-sonnet-4": 1_000_000, "anthropic/claude-sonnet-4-5": 900_000 };
    expect(contextWindowFor("claude-sonnet-4-20250514", overrides)).toBe(1_000_000);
    expect(contextWindowFor("us.anthropic.claude-sonnet-4-5-20250929-v1:0", overrides)).toBe(
      900_000,
    );
    expect(contextWindowFor("claude-opus-4-1", overrides)).toBe(200_000);
    expect(contextWindowFor("my-finetune", { "my-finetune": 16_000 })).toBe(16_000);
    expect(contextWindowFor("deepseek-chat", { deepseek: 65_536 })).toBe(65_536);
  });

  it("rejects overrides that are not positive whole numbers", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      let caught: unknown;
      try {
        contextWindowFor("gpt-4o", { "gpt-4o": bad });
      } catch (error) {
        caught = error;
      }
      expect(InvalidOptionsError.isInstance(caught)).toBe(true);
      expect((caught as InvalidOptionsError).option).toBe("contextWindow");
      expect((caught as Error).message).toContain('"gpt-4o"');
    }
  });
});

describe("parseContextWindow", () => {
  const valid: Array<[input: number | string, tokens: number]> = [
    [128000, 128_000],
    [1, 1],
    ["128000", 128_000],
    ["128k", 128_000],
    ["128K", 128_000],
    ["200K", 200_000],
    ["1m", 1_000_000],
    ["1M", 1_000_000],
    ["1.5m", 1_500_000],
    ["2.3k", 2_300],
    ["0.5k", 500],
    [".5k", 500],
    ["128_000", 128_000],
    ["1,048,576", 1_048_576],
    [" 64k ", 64_000],
    ["32 k", 32_000],
    ["8192 tokens", 8_192],
    ["1.2345k", 1_234],
  ];
  for (const [input, tokens] of valid) {
    it(`${JSON.stringify(input)} → ${tokens}`, () => {
      expect(parseContextWindow(input)).toBe(tokens);
    });
  }

  const invalid: Array<number | string> = [
    0,
    -5,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    2 ** 60,
    "",
    "   ",
    "abc",
    "0",
    "0k",
    "-128k",
    "128kb",
    "128 thousand",
    "1g",
    "k",
    "1.2.3k",
    "NaN",
    "Infinity",
    "0x100",
    "1e6",
    "0.0001k",
  ];
  for (const input of invalid) {
    it(`rejects ${JSON.stringify(String(input))}`, () => {
      let caught: unknown;
      try {
        parseContextWindow(input);
      } catch (error) {
        caught = error;
      }
      expect(InvalidOptionsError.isInstance(caught)).toBe(true);
      expect(CondenseError.isInstance(caught)).toBe(true);
      const error = caught as InvalidOptionsError;
      expect(error.option).toBe("contextWindow");
      expect(error.message).toMatch(
        /^option `contextWindow`: expected a positive number of tokens/,
      );
      expect(error.message).toContain('"128k"');
    });
  }

  it("rejects values of the wrong type at runtime", () => {
    for (const input of [null, undefined, {}, [], true] as unknown as string[]) {
      expect(() => parseContextWindow(input)).toThrow(/contextWindow/);
    }
  });

  it("round-trips whole numbers and k/m suffixes (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000_000 }), (n) => {
        expect(parseContextWindow(n)).toBe(n);
        expect(parseContextWindow(String(n))).toBe(n);
        expect(parseContextWindow(`${n}k`)).toBe(n * 1000);
        expect(parseContextWindow(`${n}M`)).toBe(n * 1_000_000);
      }),
    );
  });
});

describe("contextWindowFor input", () => {
  it("rejects a model name that is not a string with a typed error", () => {
    for (const model of [5, null, undefined, {}]) {
      let caught: unknown;
      try {
        contextWindowFor(model as never);
      } catch (error) {
        caught = error;
      }
      expect(InvalidOptionsError.isInstance(caught)).toBe(true);
    }
  });
});
