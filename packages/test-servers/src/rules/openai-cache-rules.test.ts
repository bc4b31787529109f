import { describe, expect, it } from "vitest";
import { breakpointModel, openaiCacheViolation, writtenBreakpoints } from "./openai-cache-rules.ts";

const mark = { prompt_cache_breakpoint: { mode: "explicit" } };
const text = (value: string, extra = {}) => ({ type: "text", text: value, ...extra });
const input = (value: string, extra = {}) => ({ type: "input_text", text: value, ...extra });

describe("which models take explicit cache breakpoints (GPT-5.6 and later)", () => {
  it("reads the family from the model's name, with or without a provider prefix or a date", () => {
    for (const model of [
      "gpt-5.6",
      "gpt-5-6-sol",
      "gpt-5.6-terra-2026-07-01",
      "gpt-6-luna",
      "openai/gpt-5.7",
    ]) {
      expect(breakpointModel(model)).toBe(true);
    }
    for (const model of [
      "gpt-5.5",
      "gpt-5",
      "gpt-5-mini",
      "gpt-4o",
      "o3",
      "claude-opus-5",
      "test-model",
    ]) {
      expect(breakpointModel(model)).toBe(false);
    }
  });
});

describe("OpenAI's prompt-cache fields", () => {
  it("accepts breakpoints and options on a model that takes them, on Chat and Responses", () => {
    const chat = {
      model: "gpt-5.6",
      prompt_cache_options: { mode: "explicit", ttl: "30m" },
      messages: [
        { role: "system", content: [text("s", mark)] },
        { role: "user", content: "u" },
      ],
    };
    expect(openaiCacheViolation(chat, "chat")).toBeUndefined();
    const responses = {
      model: "gpt-6-sol",
      input: [
        {
          role: "user",
          content: [input("u", { prompt_cache_breakpoint: { mode: "explicit", ttl: "12h" } })],
        },
      ],
    };
    expect(openaiCacheViolation(responses, "responses")).toBeUndefined();
  });

  it("refuses them on a model before GPT-5.6, naming the field, in OpenAI's words", () => {
    const options = openaiCacheViolation(
      { model: "gpt-5.5", prompt_cache_options: { mode: "implicit" }, messages: [] },
      "chat",
    );
    expect(options).toMatchObject({
      status: 400,
      param: "prompt_cache_options",
      code: "unsupported_parameter",
      message: "Unsupported parameter: 'prompt_cache_options' is not supported with this model.",
    });
    const part = openaiCacheViolation(
      { model: "gpt-4o", messages: [{ role: "user", content: [text("a"), text("b", mark)] }] },
      "chat",
    );
    expect(part?.param).toBe("messages[0].content[1].prompt_cache_breakpoint");
    const item = openaiCacheViolation(
      { model: "gpt-5", input: [{ role: "user", content: [input("a", mark)] }] },
      "responses",
    );
    expect(item?.param).toBe("input[0].content[0].prompt_cache_breakpoint");
  });

  it("refuses a malformed breakpoint or option, and a breakpoint on a Responses output part", () => {
    const chat = (part: unknown) => ({
      model: "gpt-5.6",
      messages: [{ role: "user", content: [part] }],
    });
    expect(
      openaiCacheViolation(
        chat(text("a", { prompt_cache_breakpoint: { mode: "implicit" } })),
        "chat",
      ),
    ).toMatchObject({
      param: "messages[0].content[0].prompt_cache_breakpoint.mode",
      code: "invalid_value",
    });
    expect(
      openaiCacheViolation(
        chat(text("a", { prompt_cache_breakpoint: { mode: "explicit", ttl: "1h" } })),
        "chat",
      )?.param,
    ).toBe("messages[0].content[0].prompt_cache_breakpoint.ttl");
    expect(
      openaiCacheViolation(
        { model: "gpt-5.6", prompt_cache_options: { mode: "always" }, messages: [] },
        "chat",
      )?.param,
    ).toBe("prompt_cache_options.mode");
    expect(
      openaiCacheViolation(
        { model: "gpt-5.6", prompt_cache_options: { ttl: "12h" }, messages: [] },
        "chat",
      )?.param,
    ).toBe("prompt_cache_options.ttl");
    const output = {
      model: "gpt-5.6",
      input: [
        {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "a", ...mark }],
        },
      ],
    };
    expect(openaiCacheViolation(output, "responses")).toMatchObject({
      param: "input[0].content[0].prompt_cache_breakpoint",
      code: "unknown_parameter",
    });
  });
});

describe("which breakpoints a request writes", () => {
  const five = {
    model: "gpt-5.6",
    messages: ["a", "b", "c", "d", "e"].map((value) => ({
      role: "user",
      content: [text(value, mark)],
    })),
  };

  it("writes the latest three beside the implicit one, or the latest four in explicit mode", () => {
    expect(writtenBreakpoints(five, "chat")).toEqual([
      { message: 2, part: 0 },
      { message: 3, part: 0 },
      { message: 4, part: 0 },
    ]);
    expect(
      writtenBreakpoints({ ...five, prompt_cache_options: { mode: "explicit" } }, "chat"),
    ).toHaveLength(4);
  });
});
