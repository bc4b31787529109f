/**
 * @module errors/overflow-wordings
 * The wording table behind errors/overflow: the phrases that say "the request does not fit the
 * model's context window", the near-misses that do not, and how to read the figures out of each.
 * Data only; errors/overflow gathers the texts of an error and matches them against this table.
 * The phrases are the ones these actually send: OpenAI, Azure OpenAI, Anthropic, Amazon
 * Bedrock (Claude, Titan, Nova, Mantle), Gemini and Vertex AI, Mistral, Cohere, Groq, Cerebras,
 * Together, Fireworks, DeepSeek, xAI, OpenRouter (and its Poolside route), Perplexity,
 * z.ai/Zhipu, Moonshot/Kimi, MiniMax, Qwen/DashScope, Doubao (Volcengine Ark), SiliconFlow,
 * Baidu ERNIE, iFlytek Spark, GitHub Copilot, Ollama, vLLM, SGLang, llama.cpp (and
 * llama-cpp-python, DS4, Lemonade), LM Studio, MLX, Hugging Face TGI/TEI, Chinese-language
 * gateways, and what agents and proxies relay: OpenAI Codex's own report and app-server error
 * info, LiteLLM's proxy naming its exception. Where each wording was found is noted beside its
 * pattern; docs/notes/overflow.md lists the sources and counts.
 *
 * Deliberately not overflow, even though several mention tokens, limits or the context:
 * - rate limits, including OpenAI's and Groq's "Request too large ... tokens per min (TPM)",
 *   Moonshot's "TPD rate limit" and Bedrock's "Too many tokens, please wait" (a 429 is never
 *   overflow, Anthropic's "Extra usage is required for long context requests" included):
 *   waiting or a plan change helps, compacting does not;
 * - quota, billing (OpenRouter's 402 "Prompt tokens limit exceeded: N > M" and "can only
 *   afford": the figures are what the credits buy, not the model's window), authentication,
 *   overload and other 5xx errors;
 * - output-limit errors (`max_tokens` above the model's output cap or "exceeds the model
 *   limit", Vertex's maxOutputTokens range, TGI's `max_new_tokens` cap): the input fits and
 *   lowering `max_tokens` is the fix.
 *   Errors about input plus `max_tokens` exceeding the window (Anthropic, vLLM, TGI `inputs`
 *   tokens + `max_new_tokens`) do count: a smaller input makes room;
 * - size limits in bytes or characters (Anthropic's 413 `request_too_large` "Request exceeds
 *   the maximum size", its 5 MB image limit, a proxy's "413 Request Entity Too Large", a
 *   bodyless "400/413 status code (no body)", Gemini's payload limit, gRPC's "Sent message
 *   larger than max", OpenAI's 10 MB string limit, TEI's character limit). They are not a
 *   context window and shrinking the history may not be what fixes them, so they are left to
 *   the caller. A 413 whose text is a token overflow still counts;
 * - limits of another kind: how many messages or tools (Azure's `$.messages`, OpenAI's `tools`,
 *   Gemini's 512 function declarations) and how deep a tool schema nests, llama.cpp's physical
 *   batch size, vLLM's start-up check of max_model_len against its KV cache, Codex's usage
 *   limit and "model is at capacity";
 * - text that mentions the context innocently: Go's "context deadline exceeded" timeout,
 *   Anthropic's "long context beta is not yet available", Gemini's "Cached content is too
 *   small".
 */

/** Token numbers an overflow error reported; each is present only when the provider said it. */
export interface OverflowTokens {
  /** Tokens the request needed (input, plus output where the provider adds it). */
  requested?: number;
  /**
   * Tokens of the input alone: the provider's own count of the prompt it was sent. Equal to
   * `requested` where the wording counts the input alone; the input's share where it adds the
   * output allowance (Anthropic's `N + M > L`, vLLM's and TGI's sums, OpenAI's "(N in the
   * messages, M in the completion)"); absent where it states only a total.
   */
  inputTokens?: number;
  /** The model's context window. */
  limit?: number;
  /** By how much the request was over. */
  excess?: number;
}

// Statuses that are never a context overflow: payment required, auth, rate limit.
export const notOverflowStatuses = new Set([401, 402, 403, 429]);

// Every pattern starts with a literal word and has no two neighbouring quantifiers that can
// match the same characters, so it runs in linear time on hostile text: overflow-wordings.test.ts
// proves it for each pattern with scslre, overflow.test.ts pumps long hostile strings through.
export const notOverflowWordings: readonly RegExp[] = [
  /rate[ _-]?limit/i,
  // OpenAI, Groq, Anthropic, Moonshot: "tokens per min (TPM)", "TPD rate limit"
  /tokens? per (?:min|minute|hour|day)|requests? per (?:min|minute|hour|day)|\b[TR]P[MD]\b/,
  /quota|billing|insufficient[ _]balance|credit balance/i,
  // OpenRouter 402: what the account's credits afford, not the model's window ("Prompt tokens
  // limit exceeded: 329159 > 168823", "requires more credits, or fewer max_tokens … can only
  // afford 29281"); a learned window from these figures would be wrong.
  /prompt tokens limit exceeded|requires more credits|can only afford/i,
  /too many requests|throttl|please wait before trying again|try again later/i,
  /resource[ _]exhausted|resource has been exhausted|overloaded/i,
  /api[ _-]?key|unauthori[sz]ed|authentication|permission[ _]denied|forbidden/i,
  /请求过于频繁|限流|频率|速率|配额|余额|欠费|稍后|每(?:分钟|秒|小时|天|日)/,
];

// Where each wording was found is beside it. Peers: pi-mono `packages/ai/src/utils/overflow.ts`
// and its tests, OpenClaw `src/agents/pi-embedded-helpers/` (errors.ts,
// provider-error-patterns.ts) and `src/agents/failover/` (the failover-classification corpus),
// LiteLLM `litellm_core_utils/exception_mapping_utils.py` and its tests, openai/codex
// `codex-rs/protocol/src/error.rs`, Hermes Agent `agent/error_classifier.py`,
// vals-ai/model-library `exceptions.py` (made by forcing each provider to overflow).
export const overflowWordings: readonly RegExp[] = [
  // OpenAI, Azure OpenAI, Groq, Cerebras, DashScope error code (OpenAI error-codes guide; pi-mono)
  /context[_ ]length[_ ]exceeded/i,
  // OpenAI, Azure, DeepSeek, vLLM, OpenRouter, Bedrock Llama: "This model's maximum context
  // length is 128000 tokens" (OpenAI API; LiteLLM)
  /maximum context length is \d/i,
  // SGLang (also relayed by LiteLLM) "Requested token count exceeds the model's maximum context
  // length of 131072 tokens"; OpenAI-compatible servers "exceeds model's maximum context length
  // (262144)"; MLX "exceeds maximum context length" (SGLang source; pi-mono)
  /exceeds? (?:the )?(?:model'?s? )?max(?:imum)? context length/i,
  // Anthropic (also through Bedrock and Vertex) "prompt is too long: N tokens > M maximum";
  // Fireworks "The prompt is too long: N, model maximum context length: M" (langchain-fireworks,
  // vals-ai/model-library); xAI "[input_too_large] The prompt is too long for this model's
  // context window" (peers' logs); Ollama "prompt too long; exceeded max context length by N
  // tokens" (pi-mono, OpenClaw); z.ai 1261 "Prompt too long" (pi-mono)
  /prompt (?:is )?too long/i,
  // Anthropic "input length and `max_tokens` exceed context limit: N + M > L" and the
  // "(i.e N + M > L)" form (Anthropic API; OpenClaw failover corpus); Bedrock "The request
  // payload size has exceed context limit"; "The input exceeds the model's maximum context limit
  // of N tokens" (both LiteLLM's context-window tests). A limit in bytes does not say "context".
  /exceed(?:s|ed)? (?:the )?(?:model'?s )?(?:maximum )?context limit/i,
  // OpenAI Responses API "Your input exceeds the context window of this model"; Warp
  /exceed(?:s|ed)? (?:the )?context window/i,
  // Anthropic "Request size exceeds model context window", as invalid_request_error (400) or
  // request_too_large (413) (OpenClaw failover corpus and sanitizer tests)
  /request size exceeds (?:the )?model context window/i,
  // MiniMax "invalid params, context window exceeds limit (2013)" (pi-mono; vals-ai)
  /context window exceeds limit/i,
  // z.ai / GLM and Anthropic stop reason `model_context_window_exceeded` surfaced as an error
  // ("Unhandled stop reason: …") (pi-mono, OpenClaw)
  // Codex app-server `codexErrorInfo: "contextWindowExceeded"` (codex app-server protocol v2);
  // LiteLLM's proxy naming its class, "litellm.ContextWindowExceededError: …" (LiteLLM tests)
  /context_?window_?exceeded/i,
  // Codex "Codex ran out of room in the model's context window. Start a new thread …", what it
  // reports after the Responses API failed with context_length_exceeded (openai/codex
  // codex-rs/protocol/src/error.rs; OpenClaw failover corpus)
  /ran out of room in the model'?s? context window/i,
  // OpenAI gpt-5 family "Input tokens exceed the configured limit of 272000 tokens. Your
  // messages resulted in 509178 tokens." (LiteLLM is_error_str_context_window_exceeded)
  /input tokens exceed the configured limit/i,
  // Gemini "The input token count (N) exceeds the maximum number of tokens allowed (M)";
  // Bedrock "Input token count exceeds the maximum number of input tokens" (pi-mono; OpenClaw)
  /input token count.{0,30}exceeds the maximum number of (?:input )?tokens/i,
  // Vertex AI "INVALID_ARGUMENT: input exceeds the maximum number of tokens" (OpenClaw)
  /input exceeds the maximum number of tokens/i,
  // Vertex AI "Unable to submit request because the input token count is N but model only
  // supports up to M" (google-genai users' reports; Hermes Agent tests)
  /input token count is \d+ but (?:the )?model only supports up to/i,
  // Bedrock "Input is too long for requested model." and, streamed, "Input is too long for this
  // model" (LiteLLM _map_bedrock_exception; OpenClaw provider-error-patterns)
  /input is too long for (?:the |this )?(?:requested )?model/i,
  // Bedrock Titan "Too many input tokens. Max input tokens: 8192, request input token count: N"
  /too many input tokens/i,
  // Bedrock Nova "Input Tokens Exceeded: Number of input tokens exceeds maximum length."
  // (vals-ai/model-library)
  /number of input tokens exceeds (?:the )?maximum length/i,
  // Bedrock Mantle "invalid_prompt: prompt tokens (330095) exceed model maximum (278528)"
  // (LiteLLM _BEDROCK_MANTLE_CONTEXT_WINDOW_PATTERN; pi-mono tests)
  /prompt tokens \(\d+\) exceeds? (?:the )?model maximum/i,
  // llama.cpp server "the request exceeds the available context size", "request (N tokens)
  // exceeds the available context size (M tokens)", type exceed_context_size_error
  /exceeds (?:the )?available context size|exceed_context_size_error/i,
  // llama.cpp server (a 500 while generating) and LM Studio "Context size has been exceeded."
  // (peers' logs and tests)
  /context size has been exceeded/i,
  // llama.cpp server, an input it cannot split (embeddings, rerank) "input (N tokens) is larger
  // than the max context size (M tokens). skipping" (llama.cpp tools/server/server-context.cpp);
  // its "input (N tokens) is too large to process. increase the physical batch size" is a batch
  // limit and is not matched
  /is larger than the max(?:imum)? context size/i,
  // llama-cpp-python
  /requested tokens \(\d+\) exceed context window/i,
  // DS4 server "Prompt has N tokens, but the configured context size is M tokens" (pi-mono)
  /prompt has [\d,]+ tokens?, but the configured context size is/i,
  // Ollama "the input length exceeds the context length"; LM Studio "Input length 1581 exceeds
  // context length 1500"
  /input(?: length)?(?: \d+)? exceeds (?:the )?context length/i,
  // LM Studio
  /greater than the context length|when context the overflows/i,
  // Mistral "Prompt contains N tokens and M draft tokens, too large for model with L maximum
  // context length"
  /too large for model with \d+ maximum context length/i,
  // Mistral (newer) "Prompt 262280 > 262144 maximum context length" (vals-ai/model-library)
  /prompt \d+ > \d+ maximum context length/i,
  // OpenAI, Groq, Cerebras "Please reduce the length of the messages"
  /reduce the length of the messages/i,
  // Cerebras "Current length is N while limit is M" (LiteLLM ExceptionCheckers)
  /current length is \d+ while limit is \d/i,
  // xAI "This model's maximum prompt length is 131072 but the request contains N tokens"
  /maximum prompt length is \d/i,
  // Moonshot / Kimi "exceeded model token limit: N (requested: M)", "model max length exceeded",
  // "Input token length too long" (pi-mono; a peer's Kimi note)
  /exceeded model token limit|model max length exceeded|input token length too long/i,
  // z.ai / Zhipu code 1261 "Prompt exceeds max length"
  /prompt exceeds max(?:imum)? length/i,
  // GitHub Copilot
  /prompt token count of \d+ exceeds the limit|model_max_prompt_tokens_exceeded/i,
  // vLLM scheduler
  /input prompt \(\d+ tokens\) is too long and exceeds limit/i,
  // vLLM V1 "The decoder prompt (length N) is longer than the maximum model length of M."
  // (vLLM input processor; peers' reports)
  /longer than the maximum model length of \d/i,
  // vLLM "The prompt (total length N) is too long to fit into the model (context length M)"
  // (vllm-project/vllm#12165; a peer client's tests)
  /is too long to fit into the model/i,
  // Together AI "The input (N tokens) is longer than the model's context length (M tokens)";
  // Aleph Alpha "longer than the model's maximum context length" (pi-mono; LiteLLM)
  /longer than the model'?s (?:maximum )?context length/i,
  // SGLang "Input length (N tokens) exceeds the maximum allowed length (M tokens)"
  /exceeds the maximum allowed length \(\d+ tokens\)/i,
  // OpenRouter's Poolside route "Input length N exceeds the maximum allowed input length of M
  // tokens" (pi-mono; vals-ai/model-library)
  /exceeds (?:the )?maximum allowed input length of \d/i,
  // Together, Hugging Face TGI, SageMaker "`inputs` tokens + `max_new_tokens` must be <= N"
  /`?inputs`? tokens \+ `?max_new_tokens`? must be <=/i,
  // Hugging Face TGI and TEI "`inputs` must have less than N tokens. Given: M" (TGI router
  // validation); TEI's "… characters" form is a size limit and is not matched
  /`?inputs`? must have less than \d+ tokens/i,
  // Cohere "too many tokens: total number of tokens …", "too many tokens: size limit exceeded
  // by N tokens"
  /too many tokens: (?:total number of tokens|size limit exceeded)/i,
  // Cohere "total tokens exceeds the model's maximum limit of 4096" (OpenClaw
  // provider-error-patterns tests)
  /total tokens? exceeds? (?:the )?model'?s maximum limit of \d/i,
  // "input length 14295 tokens exceeds the model limit" (OpenClaw failover corpus); the same
  // words about `max_tokens` are an output cap and are not matched
  /input length [\d,]+ tokens? exceeds (?:the )?model limit/i,
  // Perplexity "The total length of all messages is too long." (type too_many_prompt_tokens)
  /total length of all messages is too long|too_many_prompt_tokens/i,
  // Volcengine Ark (Doubao) "Total tokens of image and text exceed max message tokens"
  /exceeds? max message tokens/i,
  // Alibaba DashScope (Qwen) "Range of input length should be [1, 983616]"
  /range of input length should be \[/i,
  // SiliconFlow
  /input tokens \(\d+\) has exceeded max_prompt_tokens/i,
  /max_total_tokens \(\d+\) must be less than or equal to max_seq_len/i,
  // Baidu ERNIE (error 336103 "Prompt tokens too long")
  /prompt tokens too long/i,
  // Chinese wordings: Zhipu "Prompt 超长", iFlytek Spark 10907 "token数量超过上限", gateways'
  // "上下文过长", "请压缩上下文", "超出最大上下文长度", "输入长度超过" (OpenClaw errors.ts).
  // At most one space between the parts: an unbounded run there backtracked quadratically.
  /超出最大长度|超过最大长度|上下文过长|请压缩上下文|(?:上下文|输入|提示词?|prompt) ?(?:长度)? ?(?:超过|超出|超长)|超(?:过|出)了?(?:模型)?的?(?:最大)?(?:上下文|context)|token ?数量?超(?:过|出)了?(?:上限|限制|最大)/i,
];

// --- numbers -------------------------------------------------------------------------------

const NUMBER = "(\\d[\\d,]*)";

export interface Extractor {
  pattern: RegExp;
  read: (numbers: Array<number | undefined>) => OverflowTokens;
}

/** `source` is a regular expression with `{n}` where a number goes. */
function extractor(source: string, read: Extractor["read"]): Extractor {
  return { pattern: new RegExp(source.replaceAll("{n}", NUMBER), "i"), read };
}

// Most specific first: the generic OpenAI sentence is a prefix of vLLM's longer ones. Like the
// wordings above, each starts with a literal word so it stays linear on hostile text.
export const extractors: readonly Extractor[] = [
  // vLLM (v0.8+)
  extractor(
    "maximum context length is {n} tokens\\. However, you requested {n} output tokens and your prompt contains at least {n} input tokens, for a total of at least {n} tokens",
    ([limit, , input, total]) => ({ limit, requested: total, inputTokens: input }),
  ),
  // vLLM max_tokens check: input plus the requested output
  extractor(
    "is too large: {n}\\. This model's maximum context length is {n} tokens and your request has {n} input tokens",
    ([output = 0, limit, input = 0]) => ({ limit, requested: input + output, inputTokens: input }),
  ),
  // OpenAI (older models), DeepSeek, vLLM: "you requested N tokens (X in the messages, Y in the
  // completion)": the total includes the completion's allowance
  extractor(
    "maximum context length is {n} tokens?[.,]?\\s*however,? you requested {n} tokens \\({n} in the messages, {n} in the completion\\)",
    ([limit, requested, input]) => ({ limit, requested, inputTokens: input }),
  ),
  // OpenAI, Azure, DeepSeek, OpenRouter; vLLM "However, your request has N input tokens"
  extractor(
    "maximum context length is {n} tokens?[.,]?\\s*however,? (?:your messages resulted in|you requested(?: about)?|your request has) {n} (?:input )?tokens",
    ([limit, requested]) => ({ limit, requested }),
  ),
  // Anthropic
  extractor("prompt is too long: {n} tokens > {n} maximum", ([requested, limit]) => ({
    requested,
    limit,
  })),
  // Fireworks, Ollama
  extractor("prompt is too long: {n}, model maximum context length: {n}", ([requested, limit]) => ({
    requested,
    limit,
  })),
  // xAI "(541372 tokens > 500000 tokens)"
  extractor(
    "too long for this model's context window \\({n} tokens > {n} tokens\\)",
    ([requested, limit]) => ({
      requested,
      limit,
    }),
  ),
  // Anthropic input plus max_tokens: ": N + M > L" and "(i.e N + M > L)"
  extractor(
    "exceed context limit(?::| \\(i\\.?e\\.?,?) {n} \\+ {n} > {n}",
    ([input = 0, output = 0, limit]) => ({ requested: input + output, limit, inputTokens: input }),
  ),
  // Gemini
  extractor(
    "input token count \\({n}\\) exceeds the maximum number of tokens allowed \\({n}\\)",
    ([requested, limit]) => ({ requested, limit }),
  ),
  // … and without the input count, the limit in parentheses or (Gemini 2.5/3) bare
  extractor("exceeds the maximum number of tokens allowed \\(?{n}", ([limit]) => ({ limit })),
  // Vertex AI
  extractor(
    "input token count is {n} but (?:the )?model only supports up to {n}",
    ([requested, limit]) => ({ requested, limit }),
  ),
  // Mistral
  extractor(
    "prompt contains {n} tokens(?: and {n} draft tokens)?, too large for model with {n} maximum context length",
    ([prompt = 0, draft = 0, limit]) => ({ requested: prompt + draft, limit, inputTokens: prompt }),
  ),
  extractor("prompt {n} > {n} maximum context length", ([requested, limit]) => ({
    requested,
    limit,
  })),
  // llama-cpp-python
  extractor("requested tokens \\({n}\\) exceed context window of {n}", ([requested, limit]) => ({
    requested,
    limit,
  })),
  // LM Studio
  extractor("input length {n} exceeds context length {n}", ([requested, limit]) => ({
    requested,
    limit,
  })),
  extractor(
    "keep the first {n} tokens when context the overflows\\. However, the model is loaded with context length of only {n} tokens",
    ([requested, limit]) => ({ requested, limit }),
  ),
  extractor("n_keep: {n}\\s*>=\\s*n_ctx: {n}", ([requested, limit]) => ({ requested, limit })),
  // llama.cpp server "request (N tokens) exceeds the available context size (M tokens)", its
  // "prompt (N tokens) …" form (OpenClaw corpus) and "input (N tokens) is larger than the max
  // context size (M tokens)"
  extractor(
    "(?:request|prompt) \\({n} tokens\\) exceeds (?:the )?available context size \\({n} tokens\\)",
    ([requested, limit]) => ({ requested, limit }),
  ),
  extractor(
    "input \\({n} tokens\\) is larger than the max(?:imum)? context size \\({n} tokens\\)",
    ([requested, limit]) => ({ requested, limit }),
  ),
  // DS4 server
  extractor(
    "prompt has {n} tokens?, but the configured context size is {n} tokens",
    ([requested, limit]) => ({ requested, limit }),
  ),
  // xAI
  extractor(
    "maximum prompt length is {n} but the request contains {n} tokens",
    ([limit, requested]) => ({ limit, requested }),
  ),
  // Moonshot / Kimi
  extractor("exceeded model token limit: {n} \\(requested: {n}\\)", ([limit, requested]) => ({
    limit,
    requested,
  })),
  // GitHub Copilot
  extractor("prompt token count of {n} exceeds the limit of {n}", ([requested, limit]) => ({
    requested,
    limit,
  })),
  // vLLM scheduler
  extractor(
    "input prompt \\({n} tokens\\) is too long and exceeds limit of {n}",
    ([requested, limit]) => ({ requested, limit }),
  ),
  // vLLM V1
  extractor(
    "prompt \\(length {n}\\) is longer than the maximum model length of {n}",
    ([requested, limit]) => ({ requested, limit }),
  ),
  extractor(
    "prompt \\(total length {n}\\) is too long to fit into the model \\(context length {n}\\)",
    ([requested, limit]) => ({ requested, limit }),
  ),
  // Together AI
  extractor(
    "input \\({n} tokens\\) is longer than the model'?s context length \\({n} tokens\\)",
    ([requested, limit]) => ({ requested, limit }),
  ),
  // SGLang
  extractor(
    "input length \\({n} tokens\\) exceeds the maximum allowed length \\({n} tokens\\)",
    ([requested, limit]) => ({ requested, limit }),
  ),
  extractor(
    "maximum context length of {n} tokens\\. You requested a total of {n} tokens",
    ([limit, requested]) => ({ limit, requested }),
  ),
  // OpenAI-compatible servers "Input length (N) exceeds model's maximum context length (M)"
  extractor(
    "input length \\({n}\\) exceeds (?:the )?model'?s maximum context length \\({n}\\)",
    ([requested, limit]) => ({ requested, limit }),
  ),
  // OpenRouter's Poolside route
  extractor(
    "input length {n} exceeds the maximum allowed input length of {n} tokens",
    ([requested, limit]) => ({ requested, limit }),
  ),
  // OpenAI configured limit
  extractor(
    "configured limit of {n} tokens\\. Your messages resulted in {n} tokens",
    ([limit, requested]) => ({ limit, requested }),
  ),
  extractor("exceed the configured limit of {n} tokens", ([limit]) => ({ limit })),
  // Bedrock Mantle
  extractor(
    "prompt tokens \\({n}\\) exceeds? (?:the )?model maximum \\({n}\\)",
    ([requested, limit]) => ({
      requested,
      limit,
    }),
  ),
  // Together, Hugging Face TGI
  extractor(
    "must be <= {n}\\. Given: {n} `?inputs`? tokens and {n} `?max_new_tokens`?",
    ([limit, input = 0, output = 0]) => ({ limit, requested: input + output, inputTokens: input }),
  ),
  // … and without its "Given:" part, the limit alone (LiteLLM tests)
  extractor("`?inputs`? tokens \\+ `?max_new_tokens`? must be <= {n}", ([limit]) => ({ limit })),
  extractor("`?inputs`? must have less than {n} tokens\\. Given: {n}", ([limit, requested]) => ({
    limit,
    requested,
  })),
  extractor("`?inputs`? must have less than {n} tokens", ([limit]) => ({ limit })),
  // Cohere: v1, then v2 with and without the model's limit (which with the excess gives the
  // request's size)
  extractor("cannot exceed {n} - received {n}", ([limit, requested]) => ({ limit, requested })),
  extractor(
    "size limit exceeded by {n} tokens[^\\d]{0,120}limit for this model is {n} tokens",
    ([excess, limit]) => ({
      excess,
      limit,
      requested: excess !== undefined && limit !== undefined ? limit + excess : undefined,
    }),
  ),
  extractor("size limit exceeded by {n} tokens", ([excess]) => ({ excess })),
  // Cohere (OpenClaw's case)
  extractor("total tokens? exceeds? (?:the )?model'?s maximum limit of {n}", ([limit]) => ({
    limit,
  })),
  // Cerebras
  extractor("current length is {n} while limit is {n}", ([requested, limit]) => ({
    requested,
    limit,
  })),
  // SiliconFlow
  extractor(
    "number of input tokens \\({n}\\) has exceeded max_prompt_tokens \\({n}\\)",
    ([requested, limit]) => ({ requested, limit }),
  ),
  // A total of input and output, the input's share not stated.
  extractor(
    "max_total_tokens \\({n}\\) must be less than or equal to max_seq_len \\({n}\\)",
    ([requested, limit]) => ({ requested, limit, inputTokens: undefined }),
  ),
  // Bedrock Titan
  extractor("max input tokens: {n}, request input token count: {n}", ([limit, requested]) => ({
    limit,
    requested,
  })),
  // DashScope
  extractor("range of input length should be \\[1,\\s*{n}\\]", ([limit]) => ({ limit })),
  // Moonshot (v1)
  extractor("model max length exceeded, max length:\\s*{n}", ([limit]) => ({ limit })),
  // Ollama "prompt too long; exceeded max context length by N tokens"
  extractor("exceeded max context length by {n} tokens", ([excess]) => ({ excess })),
  // Ollama "the input length exceeds the context length of 4096"
  extractor("exceeds the context length of {n}", ([limit]) => ({ limit })),
  // "Your prompt is longer than the model's context length of 2048." (LiteLLM tests)
  extractor("longer than the model'?s context length of {n}", ([limit]) => ({ limit })),
  // OpenClaw corpus: the input's size without the limit
  extractor("input length {n} tokens? exceeds (?:the )?model limit", ([requested]) => ({
    requested,
  })),
  // Generic limits last: SGLang without its second sentence, then OpenAI's, then "maximum
  // context limit of N tokens" (LiteLLM tests).
  extractor("maximum context length of {n}", ([limit]) => ({ limit })),
  extractor("maximum context length is {n}", ([limit]) => ({ limit })),
  extractor("maximum context limit of {n}", ([limit]) => ({ limit })),
  // Chinese wording: "…超过模型最大上下文长度 131072".
  extractor("最大上下文长度 ?(?:为|是|:|：)? ?{n}", ([limit]) => ({ limit })),
];
