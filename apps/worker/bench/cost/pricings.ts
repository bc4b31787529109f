/**
 * @module bench/cost/pricings
 * The prompt-cache pricings the replay benches bill under: Anthropic's (claude-sonnet-4-5),
 * GPT-5's and gpt-4o's, from the engine's catalog.
 */

import { type CachePricing, cachePricingOf, modelPricing } from "@condense/core";

/** A pricing of the catalog, as the biller takes it. */
function pricingOf(name: string, model: string): CachePricing {
  const catalog = modelPricing(model);
  const pricing = cachePricingOf(catalog, model, name);
  if (catalog.caching.kind === "none" || pricing.inputPerMillion === 0) {
    throw new Error(`the catalog has no cache prices for ${model}`);
  }
  return pricing;
}

export const PRICINGS: CachePricing[] = [
  pricingOf("Anthropic", "claude-sonnet-4-5"),
  pricingOf("GPT-5", "gpt-5"),
  pricingOf("gpt-4o", "gpt-4o"),
];
