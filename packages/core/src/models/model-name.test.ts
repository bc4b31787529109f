import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeModelName } from "./model-name.js";

describe("normalizeModelName", () => {
  const rows: Array<[input: string, expected: string]> = [
    ["gpt-4o", "gpt-4o"],
    ["  GPT-4o-Mini  ", "gpt-4o-mini"],
    ["openai/gpt-4.1", "gpt-4.1"],
    ["azure/gpt-4o", "gpt-4o"],
    ["openrouter/anthropic/claude-3.5-sonnet:beta", "claude-3.5-sonnet"],
    ["openrouter/deepseek/deepseek-chat-v3-0324:free", "deepseek-chat-v3-0324"],
    ["anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"],
    ["us.anthropic.claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet-20241022-v2"],
    ["global.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5-20250929-v1"],
    ["anthropic.claude-3-haiku-20240307-v1:0", "claude-3-haiku-20240307-v1"],
    ["claude-3-5-sonnet-v2@20241022", "claude-3-5-sonnet-v2"],
    ["mistral.mistral-large-2407-v1:0", "mistral-large-2407-v1"],
    ["deepseek.r1-v1:0", "deepseek-r1-v1"],
    ["openai.gpt-oss-120b-1:0", "gpt-oss-120b-1"],
    ["models/gemini-1.5-pro-002", "gemini-1.5-pro-002"],
    ["publishers/google/models/gemini-2.5-pro", "gemini-2.5-pro"],
    ["ft:gpt-4o-mini-2024-07-18:acme:custom:9abcdef", "gpt-4o-mini-2024-07-18"],
    ["@cf/meta/llama-3.3-70b-instruct-fp8-fast", "llama-3.3-70b-instruct-fp8-fast"],
    ["meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b-instruct"],
    ["meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b-instruct"],
    ["meta.llama3-1-70b-instruct-v1:0", "llama-3.1-70b-instruct-v1"],
    ["accounts/fireworks/models/llama-v3p1-405b-instruct", "llama-3.1-405b-instruct"],
    ["llama3.3:70b", "llama-3.3"],
    ["llama3-70b-8192", "llama-3-70b-8192"],
    ["llama-3.2-90b-vision-preview", "llama-3.2-90b-vision-preview"],
    ["llama-2-7b-chat", "llama-2-7b-chat"],
    ["meta-llama/llama-4-scout-17b-16e-instruct", "llama-4-scout-17b-16e-instruct"],
    ["llama-guard-3-8b", "llama-guard-3-8b"],
    ["qwen/qwen-2.5-72b-instruct", "qwen2.5-72b-instruct"],
    ["qwen.qwen3-coder-480b-a35b-v1:0", "qwen3-coder-480b-a35b-v1"],
    ["open-mistral-nemo", "mistral-nemo"],
    ["open-mixtral-8x22b", "mixtral-8x22b"],
  ];
  for (const [input, expected] of rows) {
    it(`${JSON.stringify(input)} → ${expected}`, () => {
      expect(normalizeModelName(input)).toBe(expected);
    });
  }

  it("trims what cutting a tag leaves behind", () => {
    expect(normalizeModelName("! :")).toBe("!");
    expect(normalizeModelName("gpt-4o :free")).toBe("gpt-4o");
  });

  it("always yields a trimmed lower-case name without a path (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (input) => {
        const name = normalizeModelName(input);
        expect(name).toBe(name.toLowerCase());
        expect(name).not.toContain("/");
        expect(name).toBe(name.trim());
      }),
    );
  });
});
