import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SessionIdParam } from "../api/schemas";
import { agentSession, requestSession } from "./agent-identity";

const UUID = "0b6c3f7e-2f7a-4c55-9d8e-4b1f2a3c4d5e";

describe("agentSession", () => {
  it("names Claude Code's session by its header, then by metadata.user_id", async () => {
    expect(
      await agentSession(new Headers({ "x-claude-code-session-id": UUID }), {
        metadata: { user_id: JSON.stringify({ session_id: "other" }) },
      }),
    ).toEqual({ id: `claude-code:${UUID}`, source: "x-claude-code-session-id" });
    expect(
      await agentSession(new Headers(), {
        metadata: { user_id: JSON.stringify({ device_id: "d", session_id: UUID }) },
      }),
    ).toEqual({ id: `claude-code:${UUID}`, source: "metadata.user_id" });
    expect(
      await agentSession(new Headers(), {
        metadata: { user_id: `user_abc123_account_${UUID}_session_${UUID}` },
      }),
    ).toEqual({ id: `claude-code:${UUID}`, source: "metadata.user_id" });
  });

  it("names Codex's session by session-id before thread-id and prompt_cache_key", async () => {
    const headers = new Headers({ "session-id": UUID, "thread-id": "thread-2" });
    expect(await agentSession(headers, { prompt_cache_key: "key" })).toEqual({
      id: `codex:${UUID}`,
      source: "session-id",
    });
    expect(await agentSession(new Headers({ "thread-id": UUID }), {})).toEqual({
      id: `codex:${UUID}`,
      source: "thread-id",
    });
  });

  it("names opencode's session by x-session-id", async () => {
    const headers = new Headers({
      "x-session-id": "ses_ddb8a909dffefoco0yMbWDdWCq",
      "x-session-affinity": "ses_ddb8a909dffefoco0yMbWDdWCq",
    });
    expect(await agentSession(headers, {})).toEqual({
      id: "session:ses_ddb8a909dffefoco0yMbWDdWCq",
      source: "x-session-id",
    });
  });

  it("falls back on a generic prompt_cache_key or metadata.session_id", async () => {
    expect(await agentSession(new Headers(), { prompt_cache_key: "ses_01ABC" })).toEqual({
      id: "cache-key:ses_01ABC",
      source: "prompt_cache_key",
    });
    expect(await agentSession(new Headers(), { metadata: { session_id: "s-1" } })).toEqual({
      id: "session:s-1",
      source: "metadata.session_id",
    });
  });

  it("names no session when the agent sends no identity, or an empty or non-string one", async () => {
    expect(await agentSession(new Headers(), { model: "m", messages: [] })).toBeUndefined();
    expect(
      await agentSession(new Headers({ "x-claude-code-session-id": "  " }), {
        prompt_cache_key: 42,
        metadata: { user_id: "{not json" },
      }),
    ).toBeUndefined();
  });

  it("hashes a value too long or with characters a session id cannot hold", async () => {
    const long = await agentSession(new Headers(), { prompt_cache_key: "k".repeat(500) });
    expect(long?.id).toMatch(/^cache-key:h-[0-9a-f]{40}$/);
    const odd = await agentSession(new Headers(), { prompt_cache_key: "a/b c" });
    expect(odd?.id).toMatch(/^cache-key:h-[0-9a-f]{40}$/);
    expect(odd?.id).not.toBe(long?.id);
    // The same value names the same session every time.
    expect((await agentSession(new Headers(), { prompt_cache_key: "a/b c" }))?.id).toBe(odd?.id);
  });

  it("always yields a valid session id, whatever the agent sends", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (value) => {
        const found = await agentSession(new Headers(), { prompt_cache_key: value });
        if (value.trim() === "") {
          expect(found).toBeUndefined();
          return;
        }
        expect(SessionIdParam.safeParse({ id: found?.id }).success).toBe(true);
      }),
    );
  });
});

describe("requestSession", () => {
  const agent = new Headers({ "x-claude-code-session-id": UUID });

  it("lets an explicit X-Condense-Session win over the agent's own", async () => {
    expect(await requestSession("run-1", agent, {})).toEqual({
      id: "run-1",
      source: "X-Condense-Session",
    });
  });

  it("keeps a request stateless with X-Condense-Session: none", async () => {
    expect(await requestSession("none", agent, {})).toBeUndefined();
  });

  it("takes the agent's own session without the header", async () => {
    expect((await requestSession(undefined, agent, {}))?.id).toBe(`claude-code:${UUID}`);
  });
});
