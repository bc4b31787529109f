/**
 * @module formats/responses/types
 * OpenAI Responses API input items as the engine reads and writes them (the
 * wire shape, not checked: see `formats/responses/parse` for untrusted input).
 */

export interface ResponsesInputText {
  type: "input_text";
  text: string;
}

export interface ResponsesOutputText {
  type: "output_text";
  text: string;
  annotations?: unknown[];
  logprobs?: unknown[];
}

export interface ResponsesRefusal {
  type: "refusal";
  refusal: string;
}

export interface ResponsesInputImage {
  type: "input_image";
  image_url: string;
  detail?: "auto" | "low" | "high";
}

export interface ResponsesInputFile {
  type: "input_file";
  file_data?: string;
  file_id?: string | null;
  file_url?: string;
  filename?: string;
  detail?: "auto" | "low" | "high";
}

export type ResponsesContentPart =
  | ResponsesInputText
  | ResponsesOutputText
  | ResponsesRefusal
  | ResponsesInputImage
  | ResponsesInputFile;

export interface ResponsesMessageItem {
  type?: "message";
  role: "user" | "assistant" | "system" | "developer";
  content: string | ResponsesContentPart[];
  id?: string;
  status?: string;
}

export interface ResponsesFunctionCallItem {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
  status?: string;
}

export interface ResponsesFunctionCallOutputItem {
  type: "function_call_output";
  call_id: string;
  output:
    | string
    | Array<ResponsesInputText | ResponsesOutputText | ResponsesInputImage | ResponsesInputFile>;
  id?: string;
  status?: string;
}

/** A call of a custom tool: free-form text `input` (Codex's `apply_patch`). */
export interface ResponsesCustomToolCallItem {
  type: "custom_tool_call";
  call_id: string;
  name: string;
  input: string;
  id?: string;
  status?: string;
}

export interface ResponsesCustomToolCallOutputItem {
  type: "custom_tool_call_output";
  call_id: string;
  output: ResponsesFunctionCallOutputItem["output"];
  id?: string;
}

export interface ResponsesReasoningItem {
  type: "reasoning";
  id?: string;
  summary?: Array<{ type: "summary_text"; text: string }>;
  content?: unknown[];
  encrypted_content?: string | null;
  status?: string;
}

export interface ResponsesCompactionItem {
  type: "compaction";
  encrypted_content: string;
  id?: string;
}

/**
 * An item of a type the engine does not know (`web_search_call`, `local_shell_call`, one added next
 * month): kept whole and sent back verbatim; see `formats/responses/convert` for what stands for it.
 */
export interface ResponsesOpaqueItem {
  type: string;
  [key: string]: unknown;
}

/** The item types the engine reads (the `message` type may be left out, as the API allows). */
export const KNOWN_ITEM_TYPES: ReadonlySet<string> = new Set([
  "message",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "reasoning",
  "compaction",
]);

/** An item of a type the engine reads. */
export type KnownItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesFunctionCallOutputItem
  | ResponsesCustomToolCallItem
  | ResponsesCustomToolCallOutputItem
  | ResponsesReasoningItem
  | ResponsesCompactionItem;

export type ResponseItem = KnownItem | ResponsesOpaqueItem;

/** Whether the engine reads `item`'s type (a message item may leave its type out). */
export function isKnownItem(item: ResponseItem): item is KnownItem {
  return item.type === undefined || KNOWN_ITEM_TYPES.has(item.type);
}

/** Reasoning and compaction items: encrypted state that rides with the next message, never content. */
export function isRider(item: ResponseItem): boolean {
  return item.type === "reasoning" || item.type === "compaction";
}
