/**
 * @module models/pricing
 * What a model's prompt costs under prompt caching: its input price, what writing to and
 * reading from the provider's prompt cache cost as multiples of it, and how the provider
 * caches (explicit breakpoints or an automatic prefix), from the catalog (`models/catalog`)
 * with the project's rules per provider on top. The compaction policy (`compact/cost-policy`)
 * decides with it whether a compaction pays for the cache it breaks.
 */

import { InvalidOptionsError } from "../errors/condense-error.js";
import { type CatalogModel, catalogModel } from "./catalog.js";

/** How a provider caches prompts. */
export type PromptCaching =
  /**
   * Anthropic: the request marks breakpoints (`cache_control`); a later request reads the longest
   * prefix that ends at an earlier request's breakpoint. A prefix under `minTokens` is not cached.
   */
  | { kind: "breakpoints"; minTokens: number }
  /**
   * OpenAI, Google, xAI, DeepSeek, Mistral: the longest prefix shared with an earlier request is
   * read from the cache without any marker, from `minTokens` on, in whole `blockTokens` blocks.
   * `explicitBreakpoints`: OpenAI's GPT-5.6 family and later, which also take explicit breakpoints
   * (`prompt_cache_breakpoint` on content blocks, `prompt_cache_options.mode`), this many written
   * a request, and match a cached prefix only at a breakpoint
   * (developers.openai.com/api/docs/guides/prompt-caching).
   */
  | { kind: "prefix"; minTokens: number; blockTokens: number; explicitBreakpoints?: number }
  /** No caching: every input token costs the input price. */
  | { kind: "none" };

export interface ModelPricing {
  /** Where the prices come from: the catalog, the caller's override, or the defaults for unknown models. */
  source: "catalog" | "override" | "default";
  /** The catalog's id and provider of the model, when it is the source. */
  catalogId?: string;
  provider?: string;
  /** Dollars per million uncached input tokens, when known. */
  inputPerMillion: number | undefined;
  /** Dollars per million output tokens, when known. */
  outputPerMillion: number | undefined;
  /** What writing a token to the cache costs, as a multiple of the input price (Anthropic 1.25). */
  cacheWrite: number;
  /** What reading a cached token costs, as a multiple of the input price (0.1 for most current models). */
  cacheRead: number;
  caching: PromptCaching;
}

/** What a caller may set for a model: any field; the rest comes from the catalog or the defaults. */
export type PricingOverride = Partial<Omit<ModelPricing, "source" | "catalogId" | "provider">>;

/** Anthropic's documented minimum for a cached prefix on Sonnet and Opus (Haiku and Opus 4.5+ need more). */
const ANTHROPIC_MIN_TOKENS = 1_024;
/** OpenAI's automatic caching: from 1,024 tokens, in 128-token steps. */
const PREFIX_CACHING = {
  kind: "prefix",
  minTokens: 1_024,
  blockTokens: 128,
} as const satisfies PromptCaching;

/**
 * Models nobody prices: automatic prefix caching at a tenth of the input price, as OpenAI's GPT-5
 * family, Gemini, Grok and DeepSeek have it, with no write premium. The input price is unknown.
 */
export const DEFAULT_PRICING: ModelPricing = {
  source: "default",
  inputPerMillion: undefined,
  outputPerMillion: undefined,
  cacheWrite: 1,
  cacheRead: 0.1,
  caching: PREFIX_CACHING,
};

/** The most explicit breakpoints OpenAI writes in one request (three besides its implicit one). */
export const OPENAI_BREAKPOINT_WRITES = 4;

/**
 * How a catalog model's provider caches; Anthropic alone needs breakpoints. OpenAI's models take
 * explicit ones from the GPT-5.6 family on, the same models whose cache writes are priced (1.25×
 * input, "no additional fee on models before the GPT-5.6 family"): the catalog's write price is
 * the rule, so a later family is covered once the catalog lists it.
 */
function cachingOf(entry: CatalogModel): PromptCaching {
  if (entry.cacheRead === undefined) return { kind: "none" };
  if (entry.provider === "anthropic")
    return { kind: "breakpoints", minTokens: ANTHROPIC_MIN_TOKENS };
  return entry.provider === "openai" && entry.cacheWrite !== undefined
    ? { ...PREFIX_CACHING, explicitBreakpoints: OPENAI_BREAKPOINT_WRITES }
    : PREFIX_CACHING;
}

function fromCatalog(entry: CatalogModel): ModelPricing {
  const input = entry.input;
  const ratio = (price: number | undefined, fallback: number) =>
    input !== undefined && input > 0 && price !== undefined ? price / input : fallback;
  const caching = cachingOf(entry);
  return {
    source: "catalog",
    catalogId: entry.id,
    provider: entry.provider,
    inputPerMillion: input,
    outputPerMillion: entry.output,
    // Without a listed write price, writing costs what an uncached token does.
    cacheWrite: ratio(entry.cacheWrite, 1),
    cacheRead: caching.kind === "none" ? 1 : ratio(entry.cacheRead, DEFAULT_PRICING.cacheRead),
    caching,
  };
}

function checkOverride(override: PricingOverride): void {
  const multiple = (name: "cacheWrite" | "cacheRead", value: number | undefined) => {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new InvalidOptionsError(
        `pricing.${name}`,
        `expected a positive multiple of the input price (e.g. 1.25 for Anthropic's cache writes, 0.1 for reads), got ${String(value)}`,
      );
    }
  };
  multiple("cacheWrite", override.cacheWrite);
  multiple("cacheRead", override.cacheRead);
}

/**
 * The pricing of `model`: the caller's `override` on top of the catalog's entry for it (or on top
 * of {@link DEFAULT_PRICING} when the catalog does not list it).
 *
 * @throws InvalidOptionsError when an override's multiple is not a positive number.
 */
export function modelPricing(model: string, override?: PricingOverride): ModelPricing {
  const entry = typeof model === "string" ? catalogModel(model) : undefined;
  const base = entry === undefined ? DEFAULT_PRICING : fromCatalog(entry);
  if (override === undefined) return base;
  checkOverride(override);
  const defined = Object.fromEntries(
    Object.entries(override).filter(([, value]) => value !== undefined),
  ) as PricingOverride;
  return { ...base, ...defined, source: "override" };
}
