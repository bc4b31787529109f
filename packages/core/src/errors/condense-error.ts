/**
 * @module errors/condense-error
 * Error classes of the engine. Each has a stable `code` and a message that says
 * what was wrong and how to fix it. `isInstance` works across bundles and
 * realms (a Worker and its Durable Object may load separate copies), so callers
 * never depend on `instanceof`.
 */

const marker = "condense.error";
const markerSymbol = Symbol.for(marker);

export type CondenseErrorCode =
  | "invalid_messages"
  | "invalid_options"
  | "unknown_format"
  | "summarizer_failed"
  | "aborted";

export class CondenseError extends Error {
  readonly [markerSymbol] = true;
  readonly code: CondenseErrorCode;
  readonly details: unknown;

  constructor(
    code: CondenseErrorCode,
    message: string,
    options?: { cause?: unknown; details?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CondenseError";
    this.code = code;
    this.details = options?.details;
  }

  static isInstance(error: unknown): error is CondenseError {
    return typeof error === "object" && error !== null && markerSymbol in error;
  }
}

/** One problem found in a message list: where it is and how to fix it. */
export interface MessageProblem {
  /** Index of the offending message in the input array (-1 for the list itself). */
  index: number;
  /** Dotted path inside the message, e.g. `tool_calls[0].function.arguments`. */
  path: string;
  /** Stable machine-readable kind, e.g. `unknown_role`. */
  kind: string;
  /** What is wrong and how to fix it. */
  message: string;
}

const invalidMessagesSymbol = Symbol.for(`${marker}.invalid_messages`);

/** Thrown when input messages cannot be used and cannot be repaired. */
export class InvalidMessagesError extends CondenseError {
  readonly [invalidMessagesSymbol] = true;
  readonly problems: MessageProblem[];

  constructor(problems: MessageProblem[]) {
    const first = problems[0];
    const head = first
      ? `message ${first.index}${first.path ? ` (${first.path})` : ""}: ${first.message}`
      : "invalid messages";
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem(s))` : "";
    super("invalid_messages", `${head}${more}`, { details: { problems } });
    this.name = "InvalidMessagesError";
    this.problems = problems;
  }

  static override isInstance(error: unknown): error is InvalidMessagesError {
    return typeof error === "object" && error !== null && invalidMessagesSymbol in error;
  }
}

const invalidOptionsSymbol = Symbol.for(`${marker}.invalid_options`);

/** Thrown when an option has the wrong type or range. */
export class InvalidOptionsError extends CondenseError {
  readonly [invalidOptionsSymbol] = true;
  readonly option: string;

  constructor(option: string, message: string) {
    super("invalid_options", `option \`${option}\`: ${message}`, { details: { option } });
    this.name = "InvalidOptionsError";
    this.option = option;
  }

  static override isInstance(error: unknown): error is InvalidOptionsError {
    return typeof error === "object" && error !== null && invalidOptionsSymbol in error;
  }
}

export type SummarizerFailureKind =
  | "timeout"
  | "rate_limited"
  | "server_error"
  | "refusal"
  | "empty"
  | "truncated"
  | "malformed"
  | "missing_sections"
  | "too_large"
  | "aborted"
  | "network"
  | "other";

const summarizerSymbol = Symbol.for(`${marker}.summarizer_failed`);

/** Thrown by a summarizer that could not produce a usable summary; the engine falls to the next tier. */
export class SummarizerError extends CondenseError {
  readonly [summarizerSymbol] = true;
  readonly kind: SummarizerFailureKind;
  /** Seconds the provider asked us to wait, when it said so. */
  readonly retryAfter: number | undefined;
  /** Model calls made and tokens sent before the failure, so a failed attempt is still accounted for. */
  usage: { calls: number; inputTokens: number } | undefined;

  constructor(
    kind: SummarizerFailureKind,
    message: string,
    options?: { cause?: unknown; retryAfter?: number },
  ) {
    super("summarizer_failed", message, { cause: options?.cause, details: { kind } });
    this.name = "SummarizerError";
    this.kind = kind;
    this.retryAfter = options?.retryAfter;
  }

  static override isInstance(error: unknown): error is SummarizerError {
    return typeof error === "object" && error !== null && summarizerSymbol in error;
  }
}
