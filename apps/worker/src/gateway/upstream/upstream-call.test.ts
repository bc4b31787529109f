import { describe, expect, it } from "vitest";
import { ApiError } from "../../api/errors";
import {
  clientResponseHeaders,
  gatewayTimeouts,
  reachUpstream,
  upstreamRequestHeaders,
} from "./upstream-call";

describe("the headers of an upstream call", () => {
  it("sends the client's provider headers and the upstream's auth, never Condense's own or the hop's", () => {
    const incoming = new Headers({
      "anthropic-version": "2023-06-01",
      authorization: "Bearer condense-key",
      "x-condense-session": "s1",
      "x-request-id": "client-trace-1",
      cookie: "a=b",
      "cf-connecting-ip": "203.0.113.7",
      "content-type": "text/plain",
    });
    const sent = upstreamRequestHeaders(incoming, { "x-api-key": "sk-ant-deployment" });
    expect(Object.fromEntries(sent)).toEqual({
      "anthropic-version": "2023-06-01",
      "content-type": "application/json",
      "x-api-key": "sk-ant-deployment",
    });
  });

  it("gives the client the upstream's headers less the hop's own, with the gateway's added", () => {
    const upstream = new Headers({
      "content-type": "application/json",
      "x-ratelimit-remaining-requests": "99",
      "content-length": "12",
      "set-cookie": "a=b",
      "x-request-id": "req_upstream",
      "x-condense-tokens": "from the upstream",
    });
    const headers = clientResponseHeaders(upstream, { "X-Condense-Tokens": "1200" });
    expect(Object.fromEntries(headers)).toEqual({
      "content-type": "application/json",
      "x-ratelimit-remaining-requests": "99",
      "x-condense-tokens": "1200",
    });
  });
});

describe("gatewayTimeouts", () => {
  it("takes the deployment's whole milliseconds, else ten minutes, and refuses a bad value", () => {
    const env = { GATEWAY_TIMEOUT_MS: "1500.7", GATEWAY_STREAM_IDLE_TIMEOUT_MS: "" } as Env;
    expect(gatewayTimeouts(env)).toEqual({ responseMs: 1500, streamIdleMs: 600_000 });
    const bad = { GATEWAY_STREAM_IDLE_TIMEOUT_MS: "soon" } as Env;
    expect(() => gatewayTimeouts(bad)).toThrow(/GATEWAY_STREAM_IDLE_TIMEOUT_MS/);
  });
});

describe("reachUpstream", () => {
  it("makes an upstream that refuses the connection the gateway's 502", async () => {
    const error = await reachUpstream(
      "http://127.0.0.1:9/v1/models",
      { method: "GET", headers: new Headers() },
      10_000,
    ).then(
      () => undefined,
      (refused: unknown) => refused,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502, code: "upstream_unreachable" });
  });
});
