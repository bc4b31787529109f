/**
 * @module optional-bindings
 * Bindings a deployment may add to switch on optional features, typed here
 * because `wrangler types` only types what wrangler.jsonc configures:
 * `VECTORIZE` (a Vectorize index) and `AI` (Workers AI) switch on semantic
 * memory and session search (`semantic/semantic-index`); `AI` with
 * `SUMMARIZER=workers-ai` also summarizes (`workers-ai/chat-completions`);
 * `ANALYTICS` (an Analytics Engine dataset) counts compactions and gateway
 * turns (`analytics/data-points`). A deployment that configures them in
 * wrangler.jsonc gets them typed by `wrangler types` and can drop these lines.
 */

interface OptionalBindings {
  /** A Vectorize index (768 dimensions, cosine): with `AI`, memory and session search also rank by meaning. */
  VECTORIZE?: import("./semantic/semantic-index").VectorIndex;
  /**
   * Workers AI: embeds text for `VECTORIZE` (`@cf/baai/bge-base-en-v1.5`), and runs LLM summaries
   * and the memory flush with `SUMMARIZER=workers-ai`.
   */
  AI?: import("./semantic/semantic-index").EmbeddingRunner &
    import("./workers-ai/chat-completions").ChatRunner;
  /** An Analytics Engine dataset: one data point per compaction and per gateway turn. */
  ANALYTICS?: import("./analytics/data-points").AnalyticsDataset;
}

interface Env extends OptionalBindings {}

declare namespace Cloudflare {
  interface Env extends OptionalBindings {}
}
