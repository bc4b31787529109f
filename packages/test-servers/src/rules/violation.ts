/**
 * @module upstream/violation
 * A request the scripted upstream refuses, as the provider would: status,
 * message (the provider's own wording), and the parameter it names.
 */

export interface Violation {
  status: number;
  message: string;
  /** OpenAI's `param` (where in the request). */
  param?: string;
  /** OpenAI's `code`. */
  code?: string;
  /** Anthropic's error `type` (default `invalid_request_error`). */
  type?: string;
}
