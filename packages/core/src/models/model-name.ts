/**
 * @module models/model-name
 * Reduces the many spellings of one model (`openai/gpt-4o`, `azure/gpt-4o`,
 * `us.anthropic.claude-3-5-sonnet-20241022-v2:0`, `@cf/meta/llama-3.3-70b-instruct-fp8-fast`,
 * `meta-llama/Meta-Llama-3.1-8B-Instruct`, `llama3.3:70b`, `ft:gpt-4o-mini:org::id`) to one
 * lower-case base name, so tokenizer and context-window tables can match it by prefix.
 */

// Bedrock cross-region inference profiles put a region before the vendor.
const bedrockRegion = /^(?:us|eu|apac|global|us-gov|ca|jp|au)\./;
// Bedrock model ids start with `vendor.`; the vendor is not part of the family name.
const bedrockVendor =
  /^(?:anthropic|meta|mistral|amazon|cohere|ai21|openai|google|writer|moonshot|minimax|qwen)\./;

/**
 * The base model name: lower-case, without provider or route prefixes (`openai/`,
 * `openrouter/anthropic/`, `@cf/meta/`, `models/`), Bedrock region/vendor prefixes,
 * fine-tune wrappers (`ft:base:org::id`), or tag suffixes (`:free`, `:70b`, `:0`, `@20241022`).
 * Llama spellings are canonicalised to `llama-<major>[.<minor>]` (`llama3.1`, `llama3-1`,
 * `llama-v3p1` and `meta-llama-3.1` all become `llama-3.1`).
 */
export function normalizeModelName(model: string): string {
  let name = model.trim().toLowerCase();
  if (name.startsWith("ft:")) {
    // OpenAI fine-tunes: `ft:<base>:<org>:<suffix>:<id>`; the base decides tokenizer and window.
    name = name.slice(3);
  }
  const slash = name.lastIndexOf("/");
  if (slash >= 0) name = name.slice(slash + 1);
  name = name.replace(bedrockRegion, "");
  // DeepSeek on Bedrock is `deepseek.r1-v1:0`: keep the family in the name.
  name = name.replace(/^deepseek\./, "deepseek-");
  name = name.replace(bedrockVendor, "");
  const tag = name.search(/[:@]/);
  if (tag > 0) name = name.slice(0, tag);
  name = name.replace(/^meta-(?=llama)/, "").replace(/^open-(?=[a-z])/, "");
  name = name.replace(/^qwen-(?=\d)/, "qwen");
  // `(\d+)` after the minor separator must not be a parameter count such as `-70b`.
  name = name.replace(
    /^llama-?v?(\d+)(?:[.p-](\d+)(?![\d.]*b))?/,
    (_match, major: string, minor: string | undefined) =>
      minor === undefined ? `llama-${major}` : `llama-${major}.${minor}`,
  );
  // Cutting a tag or prefix can leave spaces at an end (`"gpt-4o :free"`).
  return name.trim();
}
