/**
 * @module messages/parse-provider-data
 * Reads the `provider_data` of an untrusted message (thinking blocks, Responses
 * reasoning and compaction items that `fromAnthropic`/`fromResponses` attach):
 * only its known keys are kept and their types are checked, and a block or item
 * nested past `MAX_ITEM_NESTING` is rejected as every format's parser rejects it.
 */

import {
  field,
  isRecord,
  type ProblemCollector,
  typeName,
  wellFormedDeep,
} from "./input-checks.js";
import { itemNestsTooDeep, MAX_ITEM_NESTING, nestsPastItems, tooDeepMessage } from "./limits.js";
import type { ProviderData } from "./types.js";

/** The keys kept of each provider's data, with the type each must have (any other key is dropped). */
const KEPT_KEYS = {
  anthropic: {
    thinking: "array",
    blocks: "array",
    is_error: "boolean",
    in_messages: "boolean",
    turn_fields: "object",
  },
  responses: { items: "array", id: "string", status: "string" },
} as const;

type KeyType = "array" | "string" | "boolean" | "object";

const TYPE_NAMES: Record<KeyType, string> = {
  array: "an array",
  string: "a string",
  boolean: "a boolean",
  object: "an object",
};

function hasType(value: unknown, type: KeyType): boolean {
  if (type === "object")
    return typeof value === "object" && value !== null && !Array.isArray(value);
  return type === "array" ? Array.isArray(value) : typeof value === type;
}

/** A well-formed copy of the known keys of one provider's data; a key of the wrong type is reported. */
function keptKeys(
  data: Record<string, unknown>,
  provider: keyof typeof KEPT_KEYS,
  report: (path: string, message: string) => void,
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, type] of Object.entries(KEPT_KEYS[provider])) {
    const value = field(data, key);
    if (value === undefined || value === null) continue;
    const path = `provider_data.${provider}.${key}`;
    if (hasType(value, type)) kept[key] = wellFormedDeep(value);
    else report(path, `\`${path}\` must be ${TYPE_NAMES[type]}, got ${typeName(value)}`);
  }
  return kept;
}

/** `provider_data.<provider>` when it is an object; anything else but absence is reported. */
function providerObject(
  raw: Record<string, unknown>,
  provider: "anthropic" | "responses",
  report: (path: string, message: string) => void,
): Record<string, unknown> | undefined {
  const value = field(raw, provider);
  if (isRecord(value)) return value;
  const path = `provider_data.${provider}`;
  if (value !== undefined && value !== null)
    report(path, `\`${path}\` must be an object, got ${typeName(value)}`);
  return undefined;
}

/** The provider data `fromAnthropic` / `fromResponses` attach, checked key by key. */
export function parseProviderData(
  raw: unknown,
  index: number,
  problems: ProblemCollector,
): ProviderData | undefined {
  if (raw === undefined || raw === null) return undefined;
  const report = (path: string, message: string) =>
    problems.add(
      index,
      path,
      "invalid_provider_data",
      `${message}; send it back as Condense returned it, or leave it out`,
    );
  if (!isRecord(raw)) {
    report("provider_data", `\`provider_data\` must be an object, got ${typeName(raw)}`);
    return undefined;
  }
  // Copying recurses: provider_data > anthropic > blocks > block is as deep as an item may sit, and
  // each item is measured as its format's parser measured it (`messages/limits`).
  const deep = deepProviderItem(raw);
  if (deep !== undefined || nestsPastItems(raw, 3)) {
    report(
      deep ?? "provider_data",
      tooDeepMessage(`\`${deep ?? "provider_data"}\``, MAX_ITEM_NESTING),
    );
    return undefined;
  }
  const data: ProviderData = {};
  const anthropic = providerObject(raw, "anthropic", report);
  if (anthropic !== undefined) {
    const { in_messages: inMessages, ...kept } = keptKeys(anthropic, "anthropic", report);
    // Only a system turn that stood in `messages` carries the flag; false is its absence.
    data.anthropic = inMessages === true ? { ...kept, in_messages: true } : kept;
  }
  const responses = providerObject(raw, "responses", report);
  if (responses !== undefined) data.responses = keptKeys(responses, "responses", report);
  return data.anthropic === undefined && data.responses === undefined ? undefined : data;
}

/** The lists of blocks or items in `provider_data`, by provider: each entry is measured on its own. */
const ITEM_LISTS: Record<string, readonly string[]> = {
  anthropic: ["thinking", "blocks"],
  responses: ["items"],
};

/** The path of the first block, item or other value of `provider_data` nested past what an item may. */
function deepProviderItem(raw: Record<string, unknown>): string | undefined {
  for (const [provider, lists] of Object.entries(ITEM_LISTS)) {
    const data = field(raw, provider);
    if (!isRecord(data)) continue;
    for (const [key, value] of Object.entries(data)) {
      if (lists.includes(key) && Array.isArray(value)) {
        const deep = value.findIndex(itemNestsTooDeep);
        if (deep >= 0) return `provider_data.${provider}.${key}[${deep}]`;
      } else if (itemNestsTooDeep(value)) return `provider_data.${provider}.${key}`;
    }
  }
  return undefined;
}
