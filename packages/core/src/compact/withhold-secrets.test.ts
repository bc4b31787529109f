import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../errors/condense-error.js";
import { toolCallInput } from "../messages/content.js";
import { assistant, call, result, user } from "../test-support/conversation.js";
import { labelMessages, withholdInLedger, withholdInMessages } from "./withhold-secrets.js";

const key = "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";

describe("withholdInMessages", () => {
  const messages = [
    user(`my key is ${key}`),
    assistant(`using ${key}`, [
      call("call_1", "bash", { command: `OPENAI_API_KEY=${key} run "a\\"b"` }),
    ]),
    result("call_1", `echo ${key}`),
    user("nothing secret here"),
  ];

  it("points to the tool call or the message, keeps JSON arguments valid and unchanged messages as they are", () => {
    const labels = labelMessages(messages, "openai", undefined);
    const withheld = withholdInMessages(messages, labels);
    expect(withheld[0]?.content).toBe("my key is [redacted:message:0]");
    expect(withheld[1]?.content).toBe("using [redacted:message:1]");
    const call = withheld[1]?.tool_calls?.[0];
    const args = call === undefined ? "" : toolCallInput(call);
    expect(JSON.parse(args)).toEqual({
      command: 'OPENAI_API_KEY=[redacted:tool-call:call_1] run "a\\"b"',
    });
    expect(withheld[2]?.content).toBe("echo [redacted:tool-call:call_1]");
    expect(withheld[3]).toBe(messages[3]);
    expect(JSON.stringify(withheld)).not.toContain(key);
  });

  it("uses the caller's seqs, or role ordinals for formats whose messages are not one per input", () => {
    const seqs = withholdInMessages(messages, labelMessages(messages, "openai", [7, 8, 9, null]));
    expect(seqs[0]?.content).toBe("my key is [redacted:seq:7]");
    const ordinals = withholdInMessages(messages, labelMessages(messages, "anthropic", undefined));
    expect(ordinals[1]?.content).toBe("using [redacted:assistant-message:1]");
  });

  it("rejects seqs that do not fit the messages", () => {
    for (const seqs of [[1, 2], [1, 2, 3, -4], "1,2,3,4"]) {
      expect(() => labelMessages(messages, "openai", seqs)).toThrow(InvalidOptionsError);
    }
    expect(() => labelMessages(messages, "anthropic", [1, 2, 3, 4])).toThrow(InvalidOptionsError);
  });
});

describe("withholdInLedger", () => {
  it("withholds secrets of a ledger stored before they were withheld", () => {
    const ledger = withholdInLedger({
      identifiers: [`https://u:hunter2-p4ss@git.example.com/x.git`],
      files: { read: [], modified: [] },
      userRequests: [`use ${key}`],
      summarySha256: "0".repeat(64),
    });
    expect(ledger).toEqual({
      identifiers: ["https://u:[redacted:earlier-summary]@git.example.com/x.git"],
      files: { read: [], modified: [] },
      userRequests: ["use [redacted:earlier-summary]"],
      summarySha256: "0".repeat(64),
    });
  });
});
