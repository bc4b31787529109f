/**
 * @module models/catalog
 * The model catalog: each model's context window and per-token prices (input, output, cache
 * read and cache write), as the maintained `@pydantic/genai-prices` data states them, taken
 * into `catalog.generated.ts` by `scripts/build-model-catalog.ts`. Here: the lookup of a model
 * by the catalog's own match rules (its types are `models/catalog-model`).
 *
 * The catalog is data to read, not the last word: `models/context-window` and
 * `models/pricing` put the project's corrections on top of it.
 */

import { catalogModels } from "./catalog.generated.js";
import type { CatalogMatch, CatalogModel } from "./catalog-model.js";
import { normalizeModelName } from "./model-name.js";

export type { CatalogMatch, CatalogModel } from "./catalog-model.js";

/** Patterns compiled once; a pattern this runtime cannot compile matches nothing. */
const patterns = new Map<string, RegExp | null>();

function pattern(source: string): RegExp | null {
  let compiled = patterns.get(source);
  if (compiled === undefined) {
    try {
      compiled = new RegExp(source);
    } catch {
      compiled = null;
    }
    patterns.set(source, compiled);
  }
  return compiled;
}

/** Whether `name` (normalized) is a model `match` covers. */
export function catalogMatches(match: CatalogMatch, name: string): boolean {
  if ("equals" in match) return name === match.equals;
  if ("starts_with" in match) return name.startsWith(match.starts_with);
  if ("ends_with" in match) return name.endsWith(match.ends_with);
  if ("contains" in match) return name.includes(match.contains);
  if ("regex" in match) return pattern(match.regex)?.test(name) ?? false;
  if ("or" in match) return match.or.some((inner) => catalogMatches(inner, name));
  return match.and.every((inner) => catalogMatches(inner, name));
}

/**
 * The entry found for each name asked (null for none): the catalog does not change, a search
 * through it costs tens of microseconds, and a gateway turn asks for its model's several times.
 * Cleared when full, as the names come from requests.
 */
const found = new Map<string, CatalogModel | null>();
const FOUND_LIMIT = 1024;

/**
 * The catalog's entry for `model` (any spelling `normalizeModelName` reduces), or undefined. The
 * providers are searched in the catalog's order, first-party ones first, so a model a cloud also
 * resells is priced as its maker sells it.
 */
export function catalogModel(model: string): CatalogModel | undefined {
  const known = found.get(model);
  if (known !== undefined) return known ?? undefined;
  const name = normalizeModelName(model);
  const entry =
    name === "" ? undefined : catalogModels().find((entry) => catalogMatches(entry.match, name));
  if (found.size >= FOUND_LIMIT) found.clear();
  found.set(model, entry ?? null);
  return entry;
}
