/**
 * @module formats/anthropic/types
 * The Anthropic Messages request as the engine reads and writes it: `system`
 * and `messages` with their content blocks (the wire shape, not checked: see
 * `formats/anthropic/parse` for untrusted input).
 */

export interface AnthropicCacheControl {
  type: "ephemeral";
  ttl?: "5m" | "1h";
}

export interface AnthropicTextBlock {
  type: "text";
  text: string;
  cache_control?: AnthropicCacheControl | null;
  citations?: unknown[] | null;
}

export type AnthropicImageSource =
  | { type: "base64"; media_type: string; data: string }
  | { type: "url"; url: string }
  | { type: "file"; file_id: string };

export interface AnthropicImageBlock {
  type: "image";
  source: AnthropicImageSource;
  cache_control?: AnthropicCacheControl | null;
}

export type AnthropicDocumentSource =
  | { type: "base64"; media_type: string; data: string }
  | { type: "text"; media_type: string; data: string }
  | { type: "url"; url: string }
  | { type: "file"; file_id: string }
  | { type: "content"; content: string | Array<AnthropicTextBlock | AnthropicImageBlock> };

/** A PDF, a plain-text document, a URL's or an uploaded file's document, or custom content. */
export interface AnthropicDocumentBlock {
  type: "document";
  source: AnthropicDocumentSource;
  title?: string | null;
  context?: string | null;
  citations?: { enabled?: boolean } | null;
  cache_control?: AnthropicCacheControl | null;
}

/** A search result for Claude to cite: text blocks with their source and title. */
export interface AnthropicSearchResultBlock {
  type: "search_result";
  source: string;
  title: string;
  content: AnthropicTextBlock[];
  citations?: { enabled?: boolean };
  cache_control?: AnthropicCacheControl | null;
}

/** A file of the Files API to upload into the code execution container. */
export interface AnthropicContainerUploadBlock {
  type: "container_upload";
  file_id: string;
  cache_control?: AnthropicCacheControl | null;
}

/** A tool search result's reference to a tool (inside a tool_result). */
export interface AnthropicToolReferenceBlock {
  type: "tool_reference";
  tool_name: string;
  cache_control?: AnthropicCacheControl | null;
}

/** What a tool_result's content array may hold. */
export type AnthropicToolResultContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicSearchResultBlock
  | AnthropicToolReferenceBlock;

export interface AnthropicToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: AnthropicCacheControl | null;
}

export interface AnthropicToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: string | AnthropicToolResultContentBlock[];
  is_error?: boolean;
  cache_control?: AnthropicCacheControl | null;
}

export interface AnthropicThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
}

export interface AnthropicRedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}

export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicSearchResultBlock
  | AnthropicContainerUploadBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

/**
 * A block of a type the engine does not know (`server_tool_use`, `web_search_tool_result`, one
 * added next month): kept whole and sent back verbatim; see `formats/anthropic/convert`.
 */
export interface AnthropicOpaqueBlock {
  type: string;
  [key: string]: unknown;
}

/** Any block of a turn: one the engine reads, or an opaque one. */
export type AnthropicBlock = AnthropicContentBlock | AnthropicOpaqueBlock;

/** The block types the engine reads, in any turn (`tool_reference` only inside a tool_result). */
export const KNOWN_BLOCK_TYPES: ReadonlySet<string> = new Set([
  "text",
  "image",
  "document",
  "search_result",
  "container_upload",
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
  "tool_reference",
]);

/** A block of a type the engine reads. */
export type KnownBlock = AnthropicContentBlock | AnthropicToolReferenceBlock;

export function isKnownBlock(block: AnthropicBlock | KnownBlock): block is KnownBlock {
  return KNOWN_BLOCK_TYPES.has(block.type);
}

export interface AnthropicMessage {
  /** `system`: a system turn in place (the API takes them mid-conversation). */
  role: "user" | "assistant" | "system";
  content: string | AnthropicBlock[];
  /** A system turn's per-turn control (Claude Code sends `output_config`), kept as it came. */
  [field: string]: unknown;
}

export interface AnthropicRequest {
  system?: string | AnthropicTextBlock[];
  messages: AnthropicMessage[];
}

export type AnthropicRole = AnthropicMessage["role"];
