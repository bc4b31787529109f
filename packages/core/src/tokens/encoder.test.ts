import fc from "fast-check";
import { Tiktoken } from "js-tiktoken/lite";
import cl100kBase from "js-tiktoken/ranks/cl100k_base";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { countTextTokens, type EncodingName, encodingFor } from "./encoder.js";

describe("lazy construction", () => {
  // A fresh copy of the module, so the checks hold whatever other tests counted before.
  async function freshEncoder(): Promise<typeof import("./encoder.js")> {
    vi.resetModules();
    return import("./encoder.js");
  }

  it("builds no encoding at import, and only the one used, once", async () => {
    const encoder = await freshEncoder();
    expect(encoder.encoderStats().loaded).toEqual([]);
    encoder.encodingFor("gpt-4"); // choosing an encoding does not build it
    expect(encoder.encoderStats().loaded).toEqual([]);
    encoder.countTextTokens("hello", "o200k_base");
    encoder.countTextTokens("world", "o200k_base");
    expect(encoder.encoderStats().loaded).toEqual(["o200k_base"]);
    encoder.countTextTokens("hello", "cl100k_base");
    expect(encoder.encoderStats().loaded).toEqual(["o200k_base", "cl100k_base"]);
  });

  it("does not build anything for empty text", async () => {
    const encoder = await freshEncoder();
    expect(encoder.countTextTokens("", "o200k_base")).toBe(0);
    expect(encoder.encoderStats()).toEqual({ textsEncoded: 1, loaded: [] });
  });
});

// js-tiktoken is the reference: our counts must equal `encode(text, [], []).length`.
const reference: Record<EncodingName, Tiktoken> = {} as Record<EncodingName, Tiktoken>;
beforeAll(() => {
  reference.o200k_base = new Tiktoken(o200kBase);
  reference.cl100k_base = new Tiktoken(cl100kBase);
});

function exact(text: string, encoding: EncodingName): number {
  return reference[encoding].encode(text, [], []).length;
}

const encodings: EncodingName[] = ["o200k_base", "cl100k_base"];

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

function randomText(length: number, alphabet: string, seed: number): string {
  const chars = [...alphabet];
  const next = seeded(seed);
  let out = "";
  for (let i = 0; i < length; i++) out += chars[Math.floor(next() * chars.length)];
  return out;
}

const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function minifiedJson(bytes: number): string {
  const rows: string[] = [];
  let length = 2;
  for (let i = 0; length < bytes; i++) {
    const row = { id: i, name: `item-${i}`, ok: i % 3 === 0, tags: ["alpha", "beta"], v: i / 7 };
    const json = JSON.stringify(row);
    rows.push(json);
    length += json.length + 1;
  }
  return `[${rows.join(",")}]`;
}

describe("countTextTokens matches js-tiktoken exactly", () => {
  const samples: Array<[string, string]> = [
    ["English", "The quick brown fox jumps over the lazy dog. It's 3:45pm, isn't it?"],
    ["code", 'function f(x) {\n  return x.map((y) => y * 2); // double\n}\n\tconst s = "a\\"b";'],
    ["contractions", "I'm you're we've they'll she'd IT'S WE'RE"],
    ["numbers", "1234567890 3.14159 1,000,000 0x1F4 2024-11-22T10:00:00Z"],
    ["whitespace runs", "a   b\t\t\tc\n\n\n\nd    \n   e          "],
    ["CJK", "上下文长度超过模型最大限制。こんにちは世界。안녕하세요"],
    ["emoji and accents", "naïve café 😀👍🏽 👨‍👩‍👧‍👦 Ünïcödé"],
    ["special token text", "before <|endoftext|> after <|fim_prefix|><|endofprompt|>"],
    ["lone surrogates", "a\ud800b\udc00c"],
    ["long letter run", "a".repeat(2500)],
    ["long upper-case run", "Z".repeat(1500)],
    ["long punctuation run", "=".repeat(1800) + "-".repeat(700)],
    ["long CJK run", randomText(600, "的一是不了人我在有他这为之大来以个中上们", 7)],
    ["random lower-case word", randomText(2000, "abcdefghijklmnopqrstuvwxyz", 11)],
    ["hex", randomText(3000, "0123456789abcdef", 13)],
  ];

  for (const encoding of encodings) {
    for (const [name, text] of samples) {
      it(`${encoding}: ${name}`, () => {
        expect(countTextTokens(text, encoding)).toBe(exact(text, encoding));
      });
    }
  }

  it("matches on arbitrary Unicode strings (property)", () => {
    for (const encoding of encodings) {
      fc.assert(
        fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => {
          expect(countTextTokens(text, encoding)).toBe(exact(text, encoding));
        }),
        { numRuns: 300 },
      );
    }
  });

  it("matches on text built from tokenizer-relevant fragments (property)", () => {
    const fragment = fc.constantFrom(
      " ",
      "  ",
      "\n",
      "\r\n",
      "\t",
      "'s",
      "'LL",
      "a",
      "A",
      "hello",
      "World",
      "123",
      "4567",
      "é",
      "中文",
      "😀",
      "{}",
      '":"',
      "==",
      "/",
      "<|endoftext|>",
      "\u0301",
    );
    for (const encoding of encodings) {
      fc.assert(
        fc.property(fc.array(fragment, { maxLength: 120 }), (parts) => {
          const text = parts.join("");
          expect(countTextTokens(text, encoding)).toBe(exact(text, encoding));
        }),
        { numRuns: 300 },
      );
    }
  });

  it("matches on long pieces of mixed-script letters, the heap merge's input (property)", () => {
    // No spaces or digits, so each run is one pre-token piece of well over 24 bytes.
    const letters = fc.constantFrom(
      "a",
      "e",
      "st",
      "ing",
      "é",
      "ß",
      "Ж",
      "ный",
      "中",
      "語",
      "ー",
      "ア",
    );
    for (const encoding of encodings) {
      fc.assert(
        fc.property(fc.array(letters, { minLength: 10, maxLength: 200 }), (parts) => {
          const text = parts.join("");
          expect(countTextTokens(text, encoding)).toBe(exact(text, encoding));
        }),
        { numRuns: 200 },
      );
    }
  });
});

describe("hostile text", () => {
  // The exact count is affordable with js-tiktoken at these sizes; our result must be within
  // 1% of it (it is in fact identical, since nothing is split or approximated).
  it("50 KB of base64 is within 1% of the exact count", () => {
    const text = randomText(50_000, base64Alphabet, 1);
    const error = Math.abs(countTextTokens(text, "o200k_base") - exact(text, "o200k_base"));
    expect(error / exact(text, "o200k_base")).toBeLessThan(0.01);
    expect(error).toBe(0);
  });

  it("50 KB of minified JSON is within 1% of the exact count", () => {
    const text = minifiedJson(50_000);
    const expected = exact(text, "o200k_base");
    expect(Math.abs(countTextTokens(text, "o200k_base") - expected) / expected).toBeLessThan(0.01);
    expect(countTextTokens(text, "o200k_base")).toBe(expected);
  });

  it("1 MB of base64 and of minified JSON count exactly", () => {
    const base64 = randomText(1 << 20, base64Alphabet, 2);
    expect(countTextTokens(base64, "o200k_base")).toBe(exact(base64, "o200k_base"));
    const json = minifiedJson(1 << 20);
    expect(countTextTokens(json, "o200k_base")).toBe(exact(json, "o200k_base"));
  });

  it("counts a 1 MB run without whitespace (a single pre-token piece)", () => {
    // js-tiktoken needs minutes for this; its count for 4,096 `a`s scales linearly because
    // o200k merges runs of `a` into 8-character tokens.
    const per4k = exact("a".repeat(4096), "o200k_base");
    expect(countTextTokens("a".repeat(1 << 20), "o200k_base")).toBe(256 * per4k);
  });
});

describe("encodingFor", () => {
  const rows: Array<[model: string, encoding: EncodingName, exact: boolean, margin: number]> = [
    ["gpt-4o", "o200k_base", true, 0],
    ["gpt-4o-mini-2024-07-18", "o200k_base", true, 0],
    ["chatgpt-4o-latest", "o200k_base", true, 0],
    ["gpt-4.1-nano", "o200k_base", true, 0],
    ["gpt-4.5-preview", "o200k_base", true, 0],
    ["gpt-5", "o200k_base", true, 0],
    ["gpt-5.1-codex", "o200k_base", true, 0],
    ["gpt-5.2", "o200k_base", true, 0],
    ["o1", "o200k_base", true, 0],
    ["o1-mini", "o200k_base", true, 0],
    ["o3-pro", "o200k_base", true, 0],
    ["o4-mini-2025-04-16", "o200k_base", true, 0],
    ["gpt-oss-120b", "o200k_base", true, 0],
    ["gpt-4", "cl100k_base", true, 0],
    ["gpt-4-0613", "cl100k_base", true, 0],
    ["gpt-4-turbo-2024-04-09", "cl100k_base", true, 0],
    ["gpt-4-32k", "cl100k_base", true, 0],
    ["gpt-3.5-turbo", "cl100k_base", true, 0],
    ["azure/gpt-35-turbo", "cl100k_base", true, 0],
    ["text-embedding-3-small", "cl100k_base", true, 0],
    ["openai/gpt-4o", "o200k_base", true, 0],
    ["azure/gpt-4.1", "o200k_base", true, 0],
    ["openrouter/openai/o3-mini", "o200k_base", true, 0],
    ["ft:gpt-4o-mini-2024-07-18:acme::9abc", "o200k_base", true, 0],
    ["ft:gpt-3.5-turbo-0125:acme::9abc", "cl100k_base", true, 0],
    ["claude-sonnet-4-5-20250929", "o200k_base", false, 0.15],
    ["anthropic/claude-3.5-sonnet", "o200k_base", false, 0.15],
    ["us.anthropic.claude-3-5-sonnet-20241022-v2:0", "o200k_base", false, 0.15],
    ["gemini-2.5-pro", "o200k_base", false, 0.1],
    ["google/gemma-3-27b-it", "o200k_base", false, 0.1],
    ["@cf/meta/llama-3.3-70b-instruct-fp8-fast", "o200k_base", false, 0.1],
    ["meta-llama/Llama-4-Scout-17B-16E-Instruct", "o200k_base", false, 0.1],
    ["qwen/qwen3-235b-a22b", "o200k_base", false, 0.1],
    ["deepseek-chat", "o200k_base", false, 0.1],
    ["z-ai/glm-4.6", "o200k_base", false, 0.1],
    ["mistral-large-latest", "o200k_base", false, 0.1],
    ["codestral-2501", "o200k_base", false, 0.1],
    ["grok-4", "o200k_base", false, 0.2],
    ["my-private-model", "o200k_base", false, 0.2],
    ["", "o200k_base", false, 0.2],
  ];
  for (const [model, encoding, isExact, margin] of rows) {
    it(`${JSON.stringify(model)} → ${encoding}${isExact ? "" : ` +${margin * 100}%`}`, () => {
      expect(encodingFor(model)).toEqual({ encoding, exact: isExact, safetyMargin: margin });
    });
  }

  it("does not mistake look-alike names for OpenAI models", () => {
    expect(encodingFor("o1-preview-but-not-openai").exact).toBe(true); // still the o1 family
    expect(encodingFor("gpt4all-j").exact).toBe(false);
    expect(encodingFor("opus-mt").exact).toBe(false);
    expect(encodingFor("o10x-custom").exact).toBe(false);
  });
});
