/**
 * @module errors/overflow
 * Recognises "the request does not fit the model's context window" in whatever a provider
 * client threw: Error objects, OpenAI-SDK-style `APIError`s (`status`, `code`, `error`),
 * AWS SDK exceptions, plain `{ status, message, body }` objects, response bodies as JSON
 * strings, and bare strings. The phrases are the ones OpenAI, Azure OpenAI, Anthropic,
 * Gemini, Bedrock, OpenRouter, Mistral, DeepSeek, xAI, Groq, Cerebras, Together/TGI, Cohere,
 * vLLM, SGLang, llama.cpp, LM Studio, Ollama, Kimi, Zhipu, DashScope and ERNIE actually send.
 *
 * Deliberately not overflow, even though several mention tokens or size:
 * - rate limits, including OpenAI's and Groq's "Request too large ... tokens per min (TPM)"
 *   and Bedrock's "Too many tokens, please wait" (a 429 is never overflow): waiting helps,
 *   compacting does not;
 * - quota, billing, authentication and overload errors;
 * - output-limit errors (`max_tokens` above the model's output cap): the input fits;
 * - size limits in bytes or characters (Anthropic's 413 `request_too_large`, a proxy's
 *   "413 Request Entity Too Large", Gemini's payload limit, OpenAI's 10 MB string limit).
 *   They are not a context window and shrinking the history may not be what fixes them, so
 *   they are left to the caller. A 413 whose text is a token overflow still counts.
 */

/** Token numbers an overflow error reported; each is present only when the provider said it. */
export interface OverflowTokens {
  /** Tokens the request needed (input, plus output where the provider adds it). */
  requested?: number;
  /** The model's context window. */
  limit?: number;
  /** By how much the request was over. */
  excess?: number;
}

/** True when `error` says the request exceeded the model's context window. */
export function isContextOverflowError(error: unknown): boolean {
  return classify(collect(error));
}

/**
 * The token numbers in an overflow error, or undefined when `error` is not an overflow error
 * or carries no numbers (Groq and the OpenAI Responses API do not say how many).
 */
export function parseOverflowTokens(error: unknown): OverflowTokens | undefined {
  const facts = collect(error);
  if (!classify(facts)) return undefined;
  const promptTokens = facts.numbers.get("n_prompt_tokens");
  const contextSize = facts.numbers.get("n_ctx");
  if (promptTokens !== undefined && contextSize !== undefined) {
    return complete({ requested: promptTokens, limit: contextSize });
  }
  for (const text of facts.texts) {
    for (const extract of extractors) {
      const match = extract.pattern.exec(text);
      if (match) return complete(extract.read(match.slice(1).map(toNumber)));
    }
  }
  return undefined;
}

// --- gathering ---------------------------------------------------------------------------

interface Facts {
  texts: string[];
  statuses: number[];
  /** Numeric fields by key, e.g. llama.cpp's `n_prompt_tokens` and `n_ctx`. */
  numbers: Map<string, number>;
}

const statusKeys = new Set(["status", "statusCode", "status_code", "httpStatusCode", "httpStatus"]);
const MAX_NODES = 400;
const MAX_DEPTH = 8;
const MAX_TEXT = 64_000;

function collect(error: unknown): Facts {
  const facts: Facts = { texts: [], statuses: [], numbers: new Map() };
  const seen = new Set<object>();
  let nodes = 0;

  const visit = (value: unknown, key: string, depth: number): void => {
    if (nodes++ >= MAX_NODES || depth > MAX_DEPTH) return;
    if (typeof value === "string") {
      if (statusKeys.has(key) && /^\d{3}$/.test(value)) facts.statuses.push(Number(value));
      const text = value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) : value;
      facts.texts.push(text);
      const json = embeddedJson(text);
      if (json !== undefined) visit(json, key, depth + 1);
      return;
    }
    if (typeof value === "number") {
      // Gemini and OpenRouter put the HTTP status in the body's `code`.
      if ((statusKeys.has(key) || key === "code") && Number.isInteger(value)) {
        if (value >= 100 && value <= 599) facts.statuses.push(value);
      }
      if (Number.isFinite(value)) facts.numbers.set(key, value);
      return;
    }
    if (typeof value !== "object" || value === null || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value.slice(0, 32)) visit(item, key, depth + 1);
      return;
    }
    // `message`, `name` and `cause` of Errors are not enumerable.
    if (value instanceof Error) {
      visit(value.message, "message", depth + 1);
      visit(value.name, "name", depth + 1);
      if (!Object.prototype.propertyIsEnumerable.call(value, "cause")) {
        visit(value.cause, "cause", depth + 1);
      }
    }
    let entries: Array<[string, unknown]>;
    try {
      entries = Object.entries(value);
    } catch {
      return; // a throwing getter or proxy: use what we have
    }
    for (const [childKey, child] of entries) {
      if (childKey !== "stack") visit(child, childKey, depth + 1);
    }
  };

  visit(error, "", 0);
  return facts;
}

/** The JSON object inside a string such as `400 {"error":{...}}`, if there is one. */
function embeddedJson(text: string): unknown {
  const start = text.search(/[{[]/);
  if (start < 0) return undefined;
  const end = Math.max(text.lastIndexOf("}"), text.lastIndexOf("]"));
  if (end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

// --- deciding ------------------------------------------------------------------------------

// Statuses that are never a context overflow: payment required, auth, rate limit.
const notOverflowStatuses = new Set([401, 402, 403, 429]);

const notOverflow: readonly RegExp[] = [
  /rate[ _-]?limit/i,
  /tokens? per (?:min|minute|hour|day)|requests? per (?:min|minute|hour|day)|\b[TR]P[MD]\b/,
  /quota|billing|insufficient[ _]balance|credit balance/i,
  /too many requests|throttl|please wait before trying again|try again later/i,
  /resource[ _]exhausted|resource has been exhausted|overloaded/i,
  /api[ _-]?key|unauthori[sz]ed|authentication|permission[ _]denied|forbidden/i,
  /请求过于频繁|限流|频率|速率|配额|余额|欠费|稍后|每(?:分钟|秒|小时|天|日)/,
];

const overflow: readonly RegExp[] = [
  /context[_ ]length[_ ]exceeded/i, // OpenAI, Azure, Groq error code
  /maximum context length is \d/i, // OpenAI, Azure, DeepSeek, vLLM, OpenRouter
  /exceeds? (?:the )?(?:model'?s? )?max(?:imum)? context length/i, // MLX and other local servers
  /prompt is too long/i, // Anthropic (also through Bedrock and Vertex)
  /input length and `?max_tokens`? exceed context limit/i, // Anthropic
  /exceed(?:s|ed)? (?:the )?context window/i, // OpenAI Responses API
  /context window exceeds limit/i, // MiniMax
  /input token count.{0,30}exceeds the maximum number of tokens/i, // Gemini
  /input is too long for (?:the )?requested model/i, // Bedrock
  /too many input tokens/i, // Bedrock Titan
  /exceeds the available context size|exceed_context_size_error/i, // llama.cpp server
  /requested tokens \(\d+\) exceed context window/i, // llama-cpp-python
  /input(?: length)?(?: \d+)? exceeds (?:the )?context length/i, // Ollama, LM Studio
  /greater than the context length|when context the overflows/i, // LM Studio
  /too large for model with \d+ maximum context length/i, // Mistral
  /reduce the length of the messages/i, // OpenAI, Groq, Cerebras
  /maximum prompt length is \d/i, // xAI
  /exceeded model token limit|model max length exceeded/i, // Moonshot / Kimi
  /prompt exceeds max(?:imum)? length/i, // Zhipu (code 1261)
  /prompt token count of \d+ exceeds the limit|model_max_prompt_tokens_exceeded/i, // GitHub Copilot
  /input prompt \(\d+ tokens\) is too long and exceeds limit/i, // vLLM scheduler
  /exceeds the maximum allowed length \(\d+ tokens\)/i, // SGLang
  /`?inputs`? tokens \+ `?max_new_tokens`? must be <=/i, // Together, Hugging Face TGI
  /too many tokens: (?:total number of tokens|size limit exceeded)/i, // Cohere
  /range of input length should be \[/i, // Alibaba DashScope (Qwen)
  /input tokens \(\d+\) has exceeded max_prompt_tokens/i, // SiliconFlow
  /max_total_tokens \(\d+\) must be less than or equal to max_seq_len/i, // SiliconFlow
  /prompt tokens too long/i, // Baidu ERNIE
  // At most one space between the parts: an unbounded run there backtracked quadratically.
  /超出最大长度|超过最大长度|(?:上下文|输入|提示词?|prompt) ?(?:长度)? ?(?:超过|超出|超长)|超(?:过|出)了?(?:模型)?的?(?:最大)?(?:上下文|context)|token ?数量?超(?:过|出)了?(?:上限|限制|最大)/i,
];

function classify(facts: Facts): boolean {
  if (facts.statuses.some((status) => notOverflowStatuses.has(status))) return false;
  if (facts.texts.some((text) => notOverflow.some((pattern) => pattern.test(text)))) return false;
  return facts.texts.some((text) => overflow.some((pattern) => pattern.test(text)));
}

// --- numbers -------------------------------------------------------------------------------

// Numbers may carry thousands separators ("200,000").
const NUMBER = "(\\d[\\d,]*)";

interface Extractor {
  pattern: RegExp;
  read: (numbers: Array<number | undefined>) => OverflowTokens;
}

/** `source` is a regular expression with `{n}` where a number goes. */
function extractor(source: string, read: Extractor["read"]): Extractor {
  return { pattern: new RegExp(source.replaceAll("{n}", NUMBER), "i"), read };
}

// Most specific first: the generic OpenAI sentence is a prefix of vLLM's longer ones.
const extractors: readonly Extractor[] = [
  extractor(
    "maximum context length is {n} tokens\\. However, you requested {n} output tokens and your prompt contains at least {n} input tokens, for a total of at least {n} tokens",
    ([limit, , , total]) => ({ limit, requested: total }),
  ),
  extractor(
    "is too large: {n}\\. This model's maximum context length is {n} tokens and your request has {n} input tokens",
    ([output = 0, limit, input = 0]) => ({ limit, requested: input + output }),
  ),
  extractor(
    "maximum context length is {n} tokens?[.,]?\\s*however,? (?:your messages resulted in|you requested(?: about)?) {n} tokens",
    ([limit, requested]) => ({ limit, requested }),
  ),
  extractor("prompt is too long: {n} tokens > {n} maximum", ([requested, limit]) => ({
    requested,
    limit,
  })),
  extractor("exceed context limit: {n} \\+ {n} > {n}", ([input = 0, output = 0, limit]) => ({
    requested: input + output,
    limit,
  })),
  extractor(
    "input token count \\({n}\\) exceeds the maximum number of tokens allowed \\({n}\\)",
    ([requested, limit]) => ({ requested, limit }),
  ),
  extractor("exceeds the maximum number of tokens allowed \\({n}\\)", ([limit]) => ({ limit })),
  extractor(
    "prompt contains {n} tokens(?: and {n} draft tokens)?, too large for model with {n} maximum context length",
    ([prompt = 0, draft = 0, limit]) => ({ requested: prompt + draft, limit }),
  ),
  extractor("requested tokens \\({n}\\) exceed context window of {n}", ([requested, limit]) => ({
    requested,
    limit,
  })),
  extractor("input length {n} exceeds context length {n}", ([requested, limit]) => ({
    requested,
    limit,
  })),
  extractor(
    "keep the first {n} tokens when context the overflows\\. However, the model is loaded with context length of only {n} tokens",
    ([requested, limit]) => ({ requested, limit }),
  ),
  extractor("n_keep: {n}\\s*>=\\s*n_ctx: {n}", ([requested, limit]) => ({ requested, limit })),
  extractor(
    "maximum prompt length is {n} but the request contains {n} tokens",
    ([limit, requested]) => ({ limit, requested }),
  ),
  extractor("exceeded model token limit: {n} \\(requested: {n}\\)", ([limit, requested]) => ({
    limit,
    requested,
  })),
  extractor("prompt token count of {n} exceeds the limit of {n}", ([requested, limit]) => ({
    requested,
    limit,
  })),
  extractor(
    "input prompt \\({n} tokens\\) is too long and exceeds limit of {n}",
    ([requested, limit]) => ({ requested, limit }),
  ),
  extractor(
    "input length \\({n} tokens\\) exceeds the maximum allowed length \\({n} tokens\\)",
    ([requested, limit]) => ({ requested, limit }),
  ),
  extractor(
    "must be <= {n}\\. Given: {n} `?inputs`? tokens and {n} `?max_new_tokens`?",
    ([limit, input = 0, output = 0]) => ({ limit, requested: input + output }),
  ),
  extractor("cannot exceed {n} - received {n}", ([limit, requested]) => ({ limit, requested })),
  extractor("size limit exceeded by {n} tokens", ([excess]) => ({ excess })),
  extractor("current length is {n} while limit is {n}", ([requested, limit]) => ({
    requested,
    limit,
  })),
  extractor(
    "number of input tokens \\({n}\\) has exceeded max_prompt_tokens \\({n}\\)",
    ([requested, limit]) => ({ requested, limit }),
  ),
  extractor(
    "max_total_tokens \\({n}\\) must be less than or equal to max_seq_len \\({n}\\)",
    ([requested, limit]) => ({ requested, limit }),
  ),
  extractor("max input tokens: {n}, request input token count: {n}", ([limit, requested]) => ({
    limit,
    requested,
  })),
  extractor("range of input length should be \\[1,\\s*{n}\\]", ([limit]) => ({ limit })),
  extractor("model max length exceeded, max length:\\s*{n}", ([limit]) => ({ limit })),
  extractor("maximum context length is {n}", ([limit]) => ({ limit })),
  // Chinese wording: "…超过模型最大上下文长度 131072".
  extractor("最大上下文长度 ?(?:为|是|:|：)? ?{n}", ([limit]) => ({ limit })),
];

function toNumber(digits: string | undefined): number | undefined {
  return digits === undefined ? undefined : Number(digits.replaceAll(",", ""));
}

/** Drops unknown numbers and adds `excess` when both sides are known. */
function complete(tokens: OverflowTokens): OverflowTokens | undefined {
  const out: OverflowTokens = {};
  if (tokens.requested !== undefined && Number.isFinite(tokens.requested)) {
    out.requested = tokens.requested;
  }
  if (tokens.limit !== undefined && Number.isFinite(tokens.limit)) out.limit = tokens.limit;
  if (tokens.excess !== undefined && Number.isFinite(tokens.excess)) out.excess = tokens.excess;
  if (out.excess === undefined && out.requested !== undefined && out.limit !== undefined) {
    if (out.requested > out.limit) out.excess = out.requested - out.limit;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}
