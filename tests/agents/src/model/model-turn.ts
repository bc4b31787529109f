/**
 * @module model/model-turn
 * What the scripted model sees of a request and what it answers, whatever the
 * protocol: each protocol module (`upstream/*`) reads its request body into a
 * `ModelRequest` and renders a `ModelAnswer` in its own wire format.
 */

/** The output of one tool call, as the client sent it back. */
export interface ToolResult {
  callId: string;
  /**
   * The call it answers, where the protocol pairs results with calls by position and name rather
   * than by the model's id (Gemini): the model then reads its step from the call itself.
   */
  call?: { name: string; input: unknown };
  /** Its text (text blocks joined), as the model would read it. */
  text: string;
}

export interface ModelRequest {
  /** Names of the tools the request declares (none: a side request such as a title). */
  tools: string[];
  /** The tool results the request ends with (the newest turn), in order; empty otherwise. */
  toolResults: ToolResult[];
  /** The text of the newest user message, when the request ends with one. */
  userText: string;
  /** The system prompt (instructions, developer and system messages), joined. */
  systemText: string;
  /** Whether the request asks for reasoning the model returns (Anthropic thinking, Responses reasoning). */
  reasoning: boolean;
}

/** A call of a function tool (JSON arguments) or of a custom, free-form tool (Codex's apply_patch). */
export type ToolCall =
  | { kind: "function"; id: string; name: string; input: Record<string, unknown> }
  | { kind: "custom"; id: string; name: string; input: string };

export interface ModelAnswer {
  /** Reasoning shown before the answer (a signed thinking block, an encrypted reasoning item). */
  thinking?: string;
  text?: string;
  call?: ToolCall;
}
