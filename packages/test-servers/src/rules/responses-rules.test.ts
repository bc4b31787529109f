import { describe, expect, it } from "vitest";
import {
  callPairingViolation,
  itemTypeViolation,
  reasoningViolation,
  responsesViolation,
} from "./responses-rules.ts";
import { sealReasoning } from "./signatures.ts";

const user = { role: "user", content: "go" };
const call = { type: "function_call", call_id: "call_1", name: "exec_command", arguments: "{}" };
const output = { type: "function_call_output", call_id: "call_1", output: "ok" };
const custom = {
  type: "custom_tool_call",
  call_id: "call_2",
  name: "apply_patch",
  input: "*** Begin Patch",
};
const customOutput = { type: "custom_tool_call_output", call_id: "call_2", output: "Success." };

describe("input item types", () => {
  it("accepts the API's item types, a message without a type included", () => {
    expect(
      itemTypeViolation({ input: [user, call, output, custom, customOutput] }),
    ).toBeUndefined();
  });

  it("refuses a type the API does not know", () => {
    const violation = itemTypeViolation({ input: [user, { type: "tool_result", call_id: "x" }] });
    expect(violation?.message).toMatch(
      /^Invalid value: 'tool_result'\. Supported values are: 'message'/,
    );
    expect(violation?.param).toBe("input[1].type");
  });
});

describe("calls and their outputs", () => {
  it("accepts function and custom tool calls paired by call_id", () => {
    expect(
      callPairingViolation({ input: [user, call, output, custom, customOutput] }),
    ).toBeUndefined();
  });

  it("refuses an output whose call is missing (a custom_tool_call dropped from the history)", () => {
    expect(callPairingViolation({ input: [user, customOutput] })?.message).toBe(
      "No tool call found for custom tool call output with call_id call_2.",
    );
    expect(callPairingViolation({ input: [user, output] })?.message).toBe(
      "No tool call found for function call output with call_id call_1.",
    );
  });

  it("refuses a call left without its output", () => {
    expect(callPairingViolation({ input: [user, call] })?.message).toBe(
      "No tool output found for function call call_1.",
    );
    expect(callPairingViolation({ input: [user, custom] })?.message).toBe(
      "No tool output found for custom tool call call_2.",
    );
  });
});

describe("reasoning with store: false", () => {
  const reasoning = (encrypted: unknown) => ({
    type: "reasoning",
    id: "rs_1",
    summary: [],
    encrypted_content: encrypted,
  });

  it("accepts reasoning carried as the encrypted content it was issued with", () => {
    expect(
      reasoningViolation({ store: false, input: [user, reasoning(sealReasoning("plan"))] }),
    ).toBeUndefined();
  });

  it("refuses reasoning without its content, or referenced by id, since nothing was stored", () => {
    expect(reasoningViolation({ store: false, input: [user, reasoning(null)] })?.message).toMatch(
      /^Item with id 'rs_1' not found\. Items are not persisted when `store` is set to false\./,
    );
    expect(
      reasoningViolation({ store: false, input: [{ type: "item_reference", id: "rs_1" }] })?.status,
    ).toBe(400);
  });

  it("refuses encrypted content that was changed", () => {
    const forged = Buffer.from(JSON.stringify({ text: "plan", signature: "forged" })).toString(
      "base64",
    );
    expect(reasoningViolation({ store: false, input: [user, reasoning(forged)] })?.code).toBe(
      "invalid_encrypted_content",
    );
  });

  it("names the first rule a request breaks", () => {
    expect(responsesViolation({ input: [user, call, output] })).toBeUndefined();
    expect(responsesViolation({ input: [user, output] })?.param).toBe("input");
  });
});
