/**
 * @module json
 * Reading the loosely typed JSON of a request body: narrowing helpers, so the
 * protocol modules check what they read instead of casting it.
 */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

export function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The text of a content value: a string, or the `text` of each block, joined by newlines. */
export function contentText(value: unknown): string {
  if (typeof value === "string") return value;
  return objects(value)
    .map((block) => (typeof block.text === "string" ? block.text : contentText(block.content)))
    .filter((part) => part !== "")
    .join("\n");
}
