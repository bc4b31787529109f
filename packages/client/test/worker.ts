/**
 * @module test/worker
 * What the client tests share: a `Condense` client whose fetch goes to the
 * real Worker running in this workerd (`SELF`), the test users' keys, and
 * fresh session ids so tests never share a Durable Object.
 */

import { SELF } from "cloudflare:test";
import { Condense, type CondenseOptions } from "../src/index.js";
import type { FetchLike } from "../src/transport.js";

export const BASE_URL = "https://condense.test";

export const KEYS = { alice: "alice-key", bob: "bob-key" } as const;

/** Fetch into the Worker under test. */
export const workerFetch: FetchLike = (input, init) => SELF.fetch(input, init);

export function client(options: Partial<CondenseOptions> = {}): Condense {
  return new Condense({
    baseUrl: BASE_URL,
    apiKey: KEYS.alice,
    fetch: workerFetch,
    backoff: { initialDelayMs: 1, maxDelayMs: 4 },
    ...options,
  });
}

export function freshId(prefix = "c"): string {
  return `${prefix}-${crypto.randomUUID()}`;
}
