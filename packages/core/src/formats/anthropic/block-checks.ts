/**
 * @module formats/anthropic/block-checks
 * Shape checks of one untrusted Anthropic content block, by the role of its
 * turn: user blocks (text, image, document, search_result, container_upload,
 * tool_result and what a tool_result holds) and assistant blocks (text,
 * tool_use, thinking, redacted_thinking). Each problem is added to the
 * collector with its path; a block of a type the engine does not know is
 * forwarded for the provider to judge, its cache marker checked.
 */

import { field, isRecord, quote, type Report, typeName } from "../../messages/input-checks.js";
import { isTypeName, typeNameProblem } from "../opaque.js";
import { type AnthropicRole, KNOWN_BLOCK_TYPES } from "./types.js";

const USER_BLOCKS = [
  "text",
  "image",
  "document",
  "search_result",
  "container_upload",
  "tool_result",
] as const;
const ASSISTANT_BLOCKS = ["text", "tool_use", "thinking", "redacted_thinking"] as const;
const TOOL_RESULT_BLOCKS = [
  "text",
  "image",
  "document",
  "search_result",
  "tool_reference",
] as const;

function checkCacheControl(block: Record<string, unknown>, path: string, report: Report): void {
  const value = field(block, "cache_control");
  if (value !== undefined && value !== null && !isRecord(value)) {
    report(
      `${path}.cache_control`,
      "invalid_block",
      `\`cache_control\` must be an object like { "type": "ephemeral" }, got ${typeName(value)}`,
    );
  }
}

function checkString(
  block: Record<string, unknown>,
  key: string,
  what: string,
  path: string,
  report: Report,
  nonEmpty = false,
): boolean {
  const value = field(block, key);
  if (typeof value === "string" && (!nonEmpty || value !== "")) return true;
  report(
    `${path}.${key}`,
    "invalid_block",
    `${what} needs a ${nonEmpty ? "non-empty " : ""}string \`${key}\`, got ${typeName(value)}`,
  );
  return false;
}

export function checkTextBlock(block: Record<string, unknown>, path: string, report: Report): void {
  checkString(block, "text", "a text block", path, report);
  checkCacheControl(block, path, report);
  const citations = field(block, "citations");
  if (citations !== undefined && citations !== null && !Array.isArray(citations)) {
    report(
      `${path}.citations`,
      "invalid_block",
      `\`citations\` must be an array, got ${typeName(citations)}`,
    );
  }
}

function checkImageBlock(block: Record<string, unknown>, path: string, report: Report): void {
  checkCacheControl(block, path, report);
  const source = field(block, "source");
  if (!isRecord(source)) {
    report(
      `${path}.source`,
      "invalid_block",
      `an image block needs \`source\` as an object, got ${typeName(source)}`,
    );
    return;
  }
  const type = field(source, "type");
  if (type === "base64") {
    checkString(source, "media_type", "a base64 image source", `${path}.source`, report, true);
    checkString(source, "data", "a base64 image source", `${path}.source`, report);
  } else if (type === "url") {
    checkString(source, "url", "a url image source", `${path}.source`, report, true);
  } else if (type === "file") {
    checkString(source, "file_id", "a file image source", `${path}.source`, report, true);
  } else {
    report(
      `${path}.source.type`,
      "invalid_block",
      `unsupported image source type ${quote(type)}; use "base64" (with media_type and data), "url" or "file" (with file_id)`,
    );
  }
}

function checkOptional(
  block: Record<string, unknown>,
  key: string,
  expected: string,
  check: (value: unknown) => boolean,
  path: string,
  report: Report,
): void {
  const value = field(block, key);
  if (value === undefined || value === null || check(value)) return;
  report(
    `${path}.${key}`,
    "invalid_block",
    `\`${key}\` must be ${expected}, got ${typeName(value)}; fix it or leave it out`,
  );
}

const isString = (value: unknown): boolean => typeof value === "string";
const CITATIONS = 'an object like { "enabled": true }';

function checkDocumentBlock(block: Record<string, unknown>, path: string, report: Report): void {
  checkDocumentSource(field(block, "source"), `${path}.source`, report);
  checkOptional(block, "title", "a string", isString, path, report);
  checkOptional(block, "context", "a string", isString, path, report);
  checkOptional(block, "citations", CITATIONS, isRecord, path, report);
  checkCacheControl(block, path, report);
}

function checkDocumentSource(source: unknown, at: string, report: Report): void {
  if (!isRecord(source)) {
    report(
      at,
      "invalid_block",
      `a document block needs \`source\` as an object, got ${typeName(source)}`,
    );
    return;
  }
  const type = field(source, "type");
  switch (type) {
    case "base64":
    case "text":
      checkString(source, "media_type", `a ${type} document source`, at, report, true);
      checkString(source, "data", `a ${type} document source`, at, report);
      return;
    case "url":
      checkString(source, "url", "a url document source", at, report, true);
      return;
    case "file":
      checkString(source, "file_id", "a file document source", at, report, true);
      return;
    case "content": {
      const content = field(source, "content");
      if (typeof content === "string") return;
      if (!Array.isArray(content) || content.length === 0) {
        report(
          `${at}.content`,
          "invalid_block",
          `a content document source needs \`content\` as a string or a non-empty array of text/image blocks, got ${typeName(content)}`,
        );
        return;
      }
      checkBlockList(
        content,
        ["text", "image"],
        "a content document source",
        `${at}.content`,
        report,
      );
      return;
    }
    default:
      report(
        `${at}.type`,
        "invalid_block",
        `unsupported document source type ${quote(type)}; use "base64", "text", "url", "file" or "content"`,
      );
  }
}

function checkSearchResultBlock(
  block: Record<string, unknown>,
  path: string,
  report: Report,
): void {
  checkString(block, "source", "a search_result block", path, report, true);
  checkString(block, "title", "a search_result block", path, report);
  checkCacheControl(block, path, report);
  checkOptional(block, "citations", CITATIONS, isRecord, path, report);
  const content = field(block, "content");
  if (!Array.isArray(content) || content.length === 0) {
    report(
      `${path}.content`,
      "invalid_block",
      `a search_result block needs \`content\` as a non-empty array of text blocks, got ${typeName(content)}`,
    );
    return;
  }
  checkBlockList(content, ["text"], "a search_result", `${path}.content`, report);
}

/** Blocks nested in another block (a document's content, a search result's): `allowed` types only. */
function checkBlockList(
  blocks: unknown[],
  allowed: readonly string[],
  where: string,
  path: string,
  report: Report,
): void {
  blocks.forEach((item: unknown, itemIndex) => {
    const itemPath = `${path}[${itemIndex}]`;
    const type = isRecord(item) ? field(item, "type") : undefined;
    if (!isRecord(item) || typeof type !== "string" || !allowed.includes(type)) {
      report(
        `${itemPath}.type`,
        "invalid_block",
        `${where} takes ${allowed.join(" and ")} blocks, got ${isRecord(item) ? quote(type) : typeName(item)}`,
      );
      return;
    }
    if (type === "text") checkTextBlock(item, itemPath, report);
    else checkImageBlock(item, itemPath, report);
  });
}

function checkToolResultContent(value: unknown, path: string, report: Report): void {
  if (value === undefined || typeof value === "string") return;
  if (!Array.isArray(value)) {
    report(
      path,
      "invalid_block",
      `tool_result \`content\` must be a string or an array of ${TOOL_RESULT_BLOCKS.join(", ")} blocks, got ${typeName(value)}`,
    );
    return;
  }
  value.forEach((item: unknown, itemIndex) => {
    const itemPath = `${path}[${itemIndex}]`;
    if (!isRecord(item)) {
      report(itemPath, "invalid_block", `a block must be an object, got ${typeName(item)}`);
      return;
    }
    const type = field(item, "type");
    if (typeof type === "string" && (TOOL_RESULT_BLOCKS as readonly string[]).includes(type)) {
      checkContentBlock(item, type, itemPath, report);
      return;
    }
    if (typeof type === "string" && !KNOWN_BLOCK_TYPES.has(type) && type !== "") {
      if (!isTypeName(type)) {
        report(`${itemPath}.type`, "invalid_block_type", typeNameProblem(type, "the block"));
      }
      return;
    }
    report(
      `${itemPath}.type`,
      "unknown_block_type",
      `unsupported block type ${quote(type)} inside a tool_result; use ${TOOL_RESULT_BLOCKS.join(", ")} blocks`,
    );
  });
}

type BlockCheck = (block: Record<string, unknown>, path: string, report: Report) => void;

/** A block that stands for a file or a tool by its id or name (`key`), and may carry a cache marker. */
function namedBlock(key: string, what: string): BlockCheck {
  return (block, path, report) => {
    checkString(block, key, what, path, report, true);
    checkCacheControl(block, path, report);
  };
}

/** The checks of a user-side block, by its type (known to be allowed where it stands). */
const CONTENT_CHECKS: Readonly<Record<string, BlockCheck>> = {
  text: checkTextBlock,
  image: checkImageBlock,
  document: checkDocumentBlock,
  search_result: checkSearchResultBlock,
  container_upload: namedBlock("file_id", "a container_upload block"),
  tool_reference: namedBlock("tool_name", "a tool_reference block"),
};

function checkContentBlock(
  block: Record<string, unknown>,
  type: string,
  path: string,
  report: Report,
): void {
  CONTENT_CHECKS[type]?.(block, path, report);
}

export function checkBlock(
  block: unknown,
  role: AnthropicRole,
  path: string,
  report: Report,
): void {
  if (!isRecord(block)) {
    report(
      path,
      "invalid_block",
      `a content block must be an object with a \`type\`, got ${typeName(block)}`,
    );
    return;
  }
  const type = field(block, "type");
  const allowed: readonly string[] = role === "user" ? USER_BLOCKS : ASSISTANT_BLOCKS;
  // A type the engine does not know is forwarded whole: the provider judges it.
  if (typeof type === "string" && type !== "" && !KNOWN_BLOCK_TYPES.has(type)) {
    if (!isTypeName(type)) {
      report(`${path}.type`, "invalid_block_type", typeNameProblem(type, "the block"));
      return;
    }
    checkCacheControl(block, path, report);
    return;
  }
  if (typeof type !== "string" || !allowed.includes(type)) {
    const other: readonly string[] = role === "user" ? ASSISTANT_BLOCKS : USER_BLOCKS;
    const hint =
      typeof type === "string" && other.includes(type)
        ? `\`${type}\` blocks belong in ${role === "user" ? "assistant" : "user"} turns; move it there`
        : type === "tool_reference"
          ? "`tool_reference` blocks belong inside a tool_result's content"
          : `supported ${role} blocks are ${allowed.join(", ")}`;
    report(
      `${path}.type`,
      "unknown_block_type",
      `unsupported block type ${quote(type)} in a ${role} turn; ${hint}`,
    );
    return;
  }
  switch (type) {
    case "text":
    case "image":
    case "document":
    case "search_result":
    case "container_upload":
      checkContentBlock(block, type, path, report);
      return;
    case "tool_use": {
      checkString(block, "id", "a tool_use block", path, report, true);
      checkString(block, "name", "a tool_use block", path, report, true);
      const input = field(block, "input");
      if (!isRecord(input)) {
        report(
          `${path}.input`,
          "invalid_block",
          `a tool_use block needs \`input\` as a JSON object, got ${typeName(input)}`,
        );
      }
      checkCacheControl(block, path, report);
      return;
    }
    case "tool_result": {
      checkString(block, "tool_use_id", "a tool_result block", path, report, true);
      checkToolResultContent(field(block, "content"), `${path}.content`, report);
      const isError = field(block, "is_error");
      if (isError !== undefined && typeof isError !== "boolean") {
        report(
          `${path}.is_error`,
          "invalid_block",
          `\`is_error\` must be a boolean, got ${typeName(isError)}`,
        );
      }
      checkCacheControl(block, path, report);
      return;
    }
    case "thinking":
      checkString(block, "thinking", "a thinking block", path, report);
      checkString(block, "signature", "a thinking block", path, report);
      return;
    default:
      checkString(block, "data", "a redacted_thinking block", path, report);
  }
}
