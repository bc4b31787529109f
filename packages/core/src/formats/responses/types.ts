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

export type ResponseItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesFunctionCallOutputItem
  | ResponsesReasoningItem
  | ResponsesCompactionItem;

/** The items that carry a message's content or calls (reasoning and compaction items are opaque). */
export type VisibleItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesFunctionCallOutputItem;

export function isVisible(item: ResponseItem): item is VisibleItem {
  return item.type !== "reasoning" && item.type !== "compaction";
}
