/**
 * @module messages/types
 * The canonical message shape of the engine: OpenAI Chat Completions. Every
 * other format (Anthropic Messages, OpenAI Responses) is converted to it on the
 * way in and back on the way out.
 */

export type Role = "system" | "developer" | "user" | "assistant" | "tool";

export interface TextPart {
  type: "text";
  text: string;
}

export interface ImagePart {
  type: "image_url";
  image_url: { url: string; detail?: "auto" | "low" | "high" };
}

/**
 * A document (PDF, text, …) as Chat Completions takes it: its bytes as a `data:` URL (a bare
 * base64 string is read as a PDF, the only kind OpenAI documents for it), or an uploaded file's id.
 */
export interface FilePart {
  type: "file";
  file: { file_data?: string; file_id?: string; filename?: string };
}

/** Base64 audio as Chat Completions takes it (OpenAI documents wav and mp3). */
export interface AudioPart {
  type: "input_audio";
  input_audio: { data: string; format: AudioFormat };
}

export type AudioFormat = "wav" | "mp3";

export type ContentPart = TextPart | ImagePart | FilePart | AudioPart;

export type MessageContent = string | ContentPart[] | null;

/** A call of a function tool: its arguments are JSON text. */
export interface FunctionToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/**
 * A call of a custom tool, as Chat Completions and Responses have them: free-form text input
 * (Codex's `apply_patch` is one). Responses items the engine does not know that make a call (a
 * `call_id`, e.g. `local_shell_call`) are held as custom calls too, named by their item type, the
 * item itself riding in `provider_data.responses.items` (see `formats/responses/convert`).
 */
export interface CustomToolCall {
  id: string;
  type: "custom";
  custom: { name: string; input: string };
}

export type ToolCall = FunctionToolCall | CustomToolCall;

/**
 * One Chat Completions message. `reasoning` carries thinking/reasoning blocks
 * from other formats so that round-trips keep them; it is never sent to a
 * summarizer.
 */
export interface ChatMessage {
  role: Role;
  content: MessageContent;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  /** Opaque provider data carried through conversions (thinking blocks, reasoning items, encrypted compaction items). */
  provider_data?: ProviderData;
}

/** Data that only one provider format understands, kept so a round-trip loses nothing. */
export interface ProviderData {
  /**
   * `thinking`: thinking/redacted_thinking blocks of an assistant turn; `blocks`: the
   * original blocks, sent back verbatim while the message still matches them;
   * `is_error`: the flag of a tool result; `in_messages`: a system turn in place. Cache markers
   * (`cache_control`) are never kept: they belong to the request that sent them.
   */
  anthropic?: {
    thinking?: unknown[];
    blocks?: unknown[];
    is_error?: boolean;
    /** A system message that stood in `messages` (a system turn), not in the top-level `system`. */
    in_messages?: boolean;
    /**
     * A system turn's fields beside `role` and `content` (Claude Code's per-turn control,
     * `output_config`), sent back with it.
     */
    turn_fields?: Record<string, unknown>;
  };
  /** `items`: the original input items of this message, including opaque reasoning/compaction items. */
  responses?: { items?: unknown[]; id?: string; status?: string };
  /** `parts`: the original Gemini parts of this message (thoughts and thought signatures included). */
  gemini?: { parts?: Record<string, unknown>[] };
}

export type Provider = "openai" | "anthropic" | "gemini";

export type MessageFormat = "openai" | "anthropic" | "responses" | "gemini";
