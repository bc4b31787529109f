/**
 * @module rules/violation
 * An error a provider answers with, in its own terms: the HTTP status, the
 * message (the provider's wording), and what OpenAI and Anthropic add to it.
 * A request the rules refuse, an overflow and a scripted failure are all one.
 */

export interface Violation {
  status: number;
  message: string;
  /** OpenAI's `param` (where in the request). */
  param?: string;
  /** OpenAI's `code`. */
  code?: string;
  /** The error's `type` (OpenAI's and Anthropic's; default by status: `invalid_request_error`, …). */
  errorType?: string;
}
