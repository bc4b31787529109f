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
  toWellFormed,
  typeName,
  wellFormedDeep,
} from "./input-checks.js";
import { itemNestsTooDeep, MAX_ITEM_NESTING, nestsPastItems, tooDeepMessage } from "./limits.js";
import type { ProviderData } from "./types.js";

function optionalOf<T>(
  record: Record<string, unknown>,
  key: string,
  check: (value: unknown) => value is T,
  expected: string,
  report: (path: string, message: string) => void,
  path: string,
): T | undefined {
  const value = field(record, key);
  if (value === undefined || value === null) return undefined;
  if (check(value)) return value;
  report(`${path}.${key}`, `\`${path}.${key}\` must be ${expected}, got ${typeName(value)}`);
  return undefined;
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

const isArray = (value: unknown): value is unknown[] => Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === "string";
const isBoolean = (value: unknown): value is boolean => typeof value === "boolean";
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
    const path = "provider_data.anthropic";
    const kept: NonNullable<ProviderData["anthropic"]> = {};
    const thinking = optionalOf(anthropic, "thinking", isArray, "an array", report, path);
    const blocks = optionalOf(anthropic, "blocks", isArray, "an array", report, path);
    const isError = optionalOf(anthropic, "is_error", isBoolean, "a boolean", report, path);
    const inMessages = optionalOf(anthropic, "in_messages", isBoolean, "a boolean", report, path);
    if (thinking !== undefined) kept.thinking = wellFormedArray(thinking);
    if (blocks !== undefined) kept.blocks = wellFormedArray(blocks);
    if (isError !== undefined) kept.is_error = isError;
    if (inMessages === true) kept.in_messages = true;
    data.anthropic = kept;
  }
  const responses = providerObject(raw, "responses", report);
  if (responses !== undefined) {
    const path = "provider_data.responses";
    const kept: NonNullable<ProviderData["responses"]> = {};
    const items = optionalOf(responses, "items", isArray, "an array", report, path);
    const id = optionalOf(responses, "id", isString, "a string", report, path);
    const status = optionalOf(responses, "status", isString, "a string", report, path);
    if (items !== undefined) kept.items = wellFormedArray(items);
    if (id !== undefined) kept.id = toWellFormed(id);
    if (status !== undefined) kept.status = toWellFormed(status);
    data.responses = kept;
  }
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

function wellFormedArray(values: unknown[]): unknown[] {
  return values.map((value) => wellFormedDeep(value));
}
