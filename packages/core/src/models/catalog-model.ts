/**
 * @module models/catalog-model
 * The shape of one model of the catalog, apart from both the generated data
 * (`catalog.generated`) and its lookup (`catalog`), so that neither imports
 * the other back.
 */

/** How the catalog says which model names an entry covers (genai-prices' match logic). */
export type CatalogMatch =
  | { equals: string }
  | { starts_with: string }
  | { ends_with: string }
  | { contains: string }
  | { regex: string }
  | { or: readonly CatalogMatch[] }
  | { and: readonly CatalogMatch[] };

/** One model of the catalog. Prices are dollars per million tokens, at the base tier. */
export interface CatalogModel {
  /** The provider that serves it (`openai`, `anthropic`, `google`, …). */
  provider: string;
  /** The catalog's id for it. */
  id: string;
  match: CatalogMatch;
  /** Tokens of context (input and output together, as the catalog gives it), when known. */
  contextWindow?: number;
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}
