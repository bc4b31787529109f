/**
 * @module api/compaction-strategy
 * How a session compacts (the glossary's strategy): a closed set, as the
 * settings' schema has it, so the view state, a commit and a compaction event
 * cannot hold another value.
 */

export type CompactionStrategy =
  /** The engine's tiers (`compact()` of `@condense/core`), run in the Worker. */
  | "local"
  /** OpenAI's Responses compaction: the view holds OpenAI's compaction items. */
  | "openai";
