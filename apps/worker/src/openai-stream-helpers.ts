/**
 * @module openai-stream-helpers
 * What the Worker's bundle has in place of the openai SDK's stream helpers (wrangler.jsonc's
 * `alias` maps the SDK's own imports of them here): `chat.completions.stream()` and `runTools()`,
 * `responses.stream()` and the Assistants `threads.runs.stream()` build these classes, and with
 * the event emitter and the Responses event accumulator they bring they are ~30 KiB of the bundle
 * gzipped (issue 29). The Worker never calls them: the summarizer and the memory flush use
 * `chat.completions.create()` (`@condense/core/openai`), whose `stream: true` answer is the SDK's
 * plain `Stream`, which stays. Only the Worker's build is narrowed; the tests run the SDK whole.
 * A call that reaches one of these anyway fails loudly, naming why.
 */

class NotInThisBundle {
  constructor() {
    throw new Error(
      "the openai SDK's stream helpers are left out of the Worker's bundle (see src/openai-stream-helpers.ts); use create() with stream: true",
    );
  }
}

export class ChatCompletionStream extends NotInThisBundle {}
export class ChatCompletionRunner extends NotInThisBundle {}
export class ChatCompletionStreamingRunner extends NotInThisBundle {}
export class AssistantStream extends NotInThisBundle {}
export class ResponseStream extends NotInThisBundle {}
