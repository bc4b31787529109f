/**
 * @module optional-bindings
 * Bindings a deployment may add to switch on optional features, typed here
 * because `wrangler types` only types what wrangler.jsonc configures:
 * `VECTORIZE` (a Vectorize index) and `AI` (Workers AI) switch on semantic
 * memory and session search (`semantic/semantic-index`). A deployment that configures them in
 * wrangler.jsonc gets them typed by `wrangler types` and can drop these lines.
 */

interface OptionalBindings {
  /** A Vectorize index (768 dimensions, cosine): with `AI`, memory and session search also rank by meaning. */
  VECTORIZE?: import("./semantic/semantic-index").VectorIndex;
  /** Workers AI, which embeds text for `VECTORIZE` (`@cf/baai/bge-base-en-v1.5`). */
  AI?: import("./semantic/semantic-index").EmbeddingRunner;
}

interface Env extends OptionalBindings {}

declare namespace Cloudflare {
  interface Env extends OptionalBindings {}
}
