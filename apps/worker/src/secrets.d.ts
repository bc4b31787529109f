/**
 * @module secrets
 * The Worker's secrets, set with `wrangler secret put NAME` (or in `.dev.vars`
 * locally). Every one is optional: what is missing switches a feature off
 * (auth fails closed, summaries fall back to the deterministic tier, OpenAI
 * forwarding answers 501). The bindings and vars of `wrangler.jsonc` are typed
 * by `wrangler types` (`worker-configuration.d.ts`), which cannot tell that a
 * secret may be absent: they are declared here, on the same `Env`.
 */

interface WorkerSecrets {
  /** `userId:token` pairs, comma- or newline-separated. */
  API_KEYS?: string;
  /** HS256 secret for JWT bearer tokens whose `sub` is the user (`http/jwt`; JWKS: `JWT_JWKS_URL`). */
  JWT_SECRET?: string;
  /** Enables `POST /v1/responses/compact` and `strategy: "openai"` sessions; the gateway's own key for upstream `openai`. */
  OPENAI_API_KEY?: string;
  /** An OpenAI-compatible endpoint for LLM summaries (else the deterministic summarizer). */
  SUMMARIZER_BASE_URL?: string;
  /** The summarizer's key (either this or `SUMMARIZER_BASE_URL` switches the LLM summarizer on). */
  SUMMARIZER_API_KEY?: string;
  /** The summarizer's model (default gpt-4o-mini; a session's `summarizerModel` overrides it). */
  SUMMARIZER_MODEL?: string;
  /**
   * The gateway's own key for upstream `anthropic`. An upstream of `GATEWAY_UPSTREAMS` has its key in
   * `GATEWAY_KEY_<NAME>` (its name in capitals, other characters `_`), read by name.
   */
  ANTHROPIC_API_KEY?: string;
  /**
   * Not a secret, and only for a local deployment (`pnpm start` sets it): the user a gateway request
   * to a loopback host is when its credential is not a Condense key (`gateway/local-user`).
   */
  GATEWAY_LOCAL_USER?: string;
  /**
   * Not a secret: the bench's seam. `1` appends without indexing for search (`session/recall/search-index`),
   * so the bench can measure what indexing adds; such messages are never searchable. Never set it.
   */
  BENCH_NO_SEARCH_INDEX?: string;
}

interface Env extends WorkerSecrets {}

declare namespace Cloudflare {
  interface Env extends WorkerSecrets {}
}
