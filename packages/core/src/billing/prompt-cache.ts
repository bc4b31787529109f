/**
 * @module billing/prompt-cache
 * What a sequence of requests costs in input tokens under a provider's prompt cache, in units
 * of one uncached input token (multiply by the input price for dollars). The bench bills the
 * requests the gateway forwarded with it (`PromptCacheBiller`, by message identity); a session
 * bills the turns it served with the same rule (`priceRequest`, `billing/turn-bill`):
 * - breakpoints (Anthropic): a request reads the longest prefix of itself that an earlier
 *   request marked with a breakpoint, writes from there to its own last breakpoint at the
 *   cache-write price, and pays the input price after it; a breakpoint on a prefix under the
 *   provider's minimum caches nothing;
 * - prefix (OpenAI and most others): the longest prefix shared with any earlier request is read,
 *   counted in whole blocks from the minimum up; the rest costs the input price; no write premium.
 * Entries never expire: agent turns come seconds apart, and each hit refreshes Anthropic's
 * 5-minute TTL. Anthropic's 20-block lookback and OpenAI's best-effort routing are not modelled.
 *
 * Written here because no library simulates a provider's cache; the rules are the providers'
 * documented ones (Anthropic's prompt-caching guide, OpenAI's prompt-caching guide).
 */

import type { ModelPricing } from "../models/pricing.js";

/** A provider's cache rules and prices, as multiples of its uncached input price. */
export interface CachePricing {
  /** A label for tables, e.g. `Anthropic`. */
  name: string;
  /** The model whose catalog prices these are. */
  model: string;
  caching: "breakpoints" | "prefix";
  cacheWrite: number;
  cacheRead: number;
  /** The shortest prefix the provider caches. */
  minTokens: number;
  /** Prefix caching counts cached tokens in blocks of this size (1 for breakpoints). */
  blockTokens: number;
  /** Dollars per million uncached input tokens. */
  inputPerMillion: number;
}

/** One request as the biller sees it: its messages' identities and sizes, and its breakpoints. */
export interface BilledRequest {
  /** One identity per message: equal content, equal key. */
  keys: readonly string[];
  /** Tokens of each message. */
  tokens: readonly number[];
  /**
   * Prefix lengths, in messages, marked for caching (`cache_control` on the message at index
   * length − 1). Read by the breakpoints rule only.
   */
  breakpoints: readonly number[];
}

/** What one request cost. */
export interface RequestBill {
  /** In uncached input tokens: read × cacheRead + written × cacheWrite + uncached. */
  cost: number;
  read: number;
  written: number;
  uncached: number;
  /** The provider could not reuse the whole previous request: its start was rewritten. */
  bust: boolean;
  tokens: number;
}

/** The totals of a sequence of requests. */
export interface SequenceBill {
  cost: number;
  read: number;
  written: number;
  uncached: number;
  busts: number;
  requests: number;
}

/**
 * The catalog's pricing of `model` as the biller takes it; a provider that caches nothing is
 * priced as a cache whose reads cost what any input token does. `inputPerMillion` is 0 when the
 * catalog has no input price.
 */
export function cachePricingOf(
  pricing: ModelPricing,
  model: string,
  name: string = model,
): CachePricing {
  const { caching } = pricing;
  const none = caching.kind === "none";
  return {
    name,
    model,
    caching: none ? "prefix" : caching.kind,
    cacheWrite: none ? 1 : pricing.cacheWrite,
    cacheRead: none ? 1 : pricing.cacheRead,
    minTokens: none ? 1 : caching.minTokens,
    blockTokens: caching.kind === "prefix" ? caching.blockTokens : 1,
    inputPerMillion: pricing.inputPerMillion ?? 0,
  };
}

/** How much of one request the cache holds, as `priceRequest` takes it. */
export interface CacheHit {
  /** Tokens of the request. */
  tokens: number;
  /** Tokens of its longest prefix an earlier request left in the cache. */
  hitTokens: number;
  /**
   * Breakpoints: tokens up to the request's last breakpoint (at least the provider's minimum),
   * which it writes to the cache from `hitTokens` on; 0 when it marks none.
   */
  markedTokens: number;
}

/**
 * The price of one request, in uncached input tokens, from how much of it the cache holds:
 * breakpoints read the hit and write up to the last mark; prefix caching reads the hit in whole
 * blocks from the minimum on and writes nothing at a premium.
 */
export function priceRequest(
  pricing: CachePricing,
  hit: CacheHit,
): Pick<RequestBill, "cost" | "read" | "written" | "uncached"> {
  let read: number;
  let written = 0;
  if (pricing.caching === "breakpoints") {
    read = hit.hitTokens;
    written = Math.max(0, hit.markedTokens - read);
  } else {
    read =
      hit.hitTokens >= pricing.minTokens
        ? Math.floor(hit.hitTokens / pricing.blockTokens) * pricing.blockTokens
        : 0;
  }
  const uncached = Math.max(0, hit.tokens - read - written);
  const cost = pricing.cacheRead * read + pricing.cacheWrite * written + uncached;
  return { cost, read, written, uncached };
}

/**
 * The key of every prefix: `prefixKeys(keys, idOf)[k]` names messages [0, k), as two rolling 32-bit
 * hashes of the messages' ids and the prefix's length (a collision would need both to collide at once).
 */
function prefixKeys(keys: readonly string[], idOf: (key: string) => number): string[] {
  const out = ["0"];
  let a = 0x811c9dc5;
  let b = 0x1234567;
  keys.forEach((key, index) => {
    const id = idOf(key);
    a = Math.imul(a ^ id, 0x01000193) >>> 0;
    b = Math.imul(b + id * 0x9e3779b1, 0x85ebca6b) >>> 0;
    b = (b ^ (b >>> 13)) >>> 0;
    out.push(`${index + 1}:${a.toString(36)}:${b.toString(36)}`);
  });
  return out;
}

/** Bills requests in order against one provider's cache. */
export class PromptCacheBiller {
  readonly #pricing: CachePricing;
  /** Prefixes the cache holds, by prefix key. */
  readonly #entries = new Set<string>();
  /** Small numbers for message keys, so prefixes are hashed, not concatenated. */
  readonly #ids = new Map<string, number>();
  #previousTokens = 0;
  readonly totals: SequenceBill = {
    cost: 0,
    read: 0,
    written: 0,
    uncached: 0,
    busts: 0,
    requests: 0,
  };

  constructor(pricing: CachePricing) {
    this.#pricing = pricing;
  }

  #idOf = (key: string): number => {
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = this.#ids.size + 1;
      this.#ids.set(key, id);
    }
    return id;
  };

  bill(request: BilledRequest): RequestBill {
    const { keys, tokens } = request;
    if (keys.length !== tokens.length) {
      throw new RangeError(
        `a billed request needs one token count per key: got ${keys.length} keys and ${tokens.length} counts`,
      );
    }
    const pricing = this.#pricing;
    const prefixes = prefixKeys(keys, this.#idOf);
    const cumulative = [0];
    for (const count of tokens) cumulative.push((cumulative.at(-1) ?? 0) + count);
    const n = keys.length;
    const total = cumulative[n] ?? 0;
    let hit = 0;
    for (let k = n; k > 0; k--) {
      if (this.#entries.has(prefixes[k] ?? "")) {
        hit = k;
        break;
      }
    }
    const hitTokens = cumulative[hit] ?? 0;
    let markedTokens = 0;
    if (pricing.caching === "breakpoints") {
      const marks = [...new Set([...request.breakpoints, n])]
        .filter((mark) => mark > 0 && mark <= n && (cumulative[mark] ?? 0) >= pricing.minTokens)
        .sort((a, b) => a - b);
      markedTokens = cumulative[marks.at(-1) ?? 0] ?? 0;
      for (const mark of marks) this.#entries.add(prefixes[mark] ?? "");
    } else {
      for (let k = 1; k <= n; k++) this.#entries.add(prefixes[k] ?? "");
    }
    const { cost, read, written, uncached } = priceRequest(pricing, {
      tokens: total,
      hitTokens,
      markedTokens,
    });
    const bust = this.#previousTokens >= pricing.minTokens && hitTokens < this.#previousTokens;
    this.#previousTokens = total;
    const totals = this.totals;
    totals.cost += cost;
    totals.read += read;
    totals.written += written;
    totals.uncached += uncached;
    totals.requests++;
    if (bust) totals.busts++;
    return { cost, read, written, uncached, bust, tokens: total };
  }
}
