/**
 * @module test-support/message-arbitraries
 * fast-check arbitraries for message lists in every format: messy canonical
 * conversations (orphans, missing/moved/duplicated results, reused ids, empty turns),
 * canonical conversations with images, files and audio, well-formed Anthropic
 * requests (documents, search results and the other user blocks included) and
 * Responses item lists (files included), canonical conversations in the
 * normal form each format can hold exactly. (Text, and conversations as an
 * agent appends them, are `@condense/test-fixtures`': the worker's tests use
 * them too.) Not part of the published package.
 */

import { arbText, arbVisibleText } from "@condense/test-fixtures";
import fc from "fast-check";
import { textToBase64 } from "../messages/data-url.js";
import type { AudioPart, ChatMessage, ContentPart, FilePart, ToolCall } from "../messages/types.js";

/** A JSON object as it would come out of `JSON.parse` (no -0, no undefined). */
export const arbJsonObject: fc.Arbitrary<Record<string, unknown>> = fc
  .dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
  .map((value) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>);

const arbToolName = fc.constantFrom(
  "bash",
  "read_file",
  "edit",
  "search",
  "Read",
  "str_replace_editor",
);

export const arbImageUrl: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("https://example.com/cat.png", "https://example.com/a/b.jpg?x=1"),
  fc.base64String({ minLength: 4, maxLength: 40 }).map((data) => `data:image/png;base64,${data}`),
);

const arbFilename = fc.option(fc.constantFrom("spec.pdf", "notes.txt", "Q3 report", "ü.md"), {
  nil: undefined,
});

/** A PDF's bytes as base64 (a header and a few page objects, or arbitrary bytes). */
const arbPdfBase64: fc.Arbitrary<string> = fc.oneof(
  fc.nat({ max: 4 }).map((pages) => btoa(`%PDF-1.7\n${"<< /Type /Page >>\n".repeat(pages)}%%EOF`)),
  fc.base64String({ minLength: 4, maxLength: 40 }),
);

/**
 * File parts every format holds exactly: a PDF or a text file by its bytes, or a file id, each
 * with or without a filename.
 */
export const arbFilePart: fc.Arbitrary<FilePart> = fc
  .tuple(
    fc.oneof(
      arbPdfBase64.map((data) => ({ file_data: `data:application/pdf;base64,${data}` })),
      arbText.map((text) => ({ file_data: `data:text/plain;base64,${textToBase64(text)}` })),
      fc.stringMatching(/^file-[A-Za-z0-9]{4,12}$/).map((id) => ({ file_id: id })),
    ),
    arbFilename,
  )
  .map(
    ([file, filename]): FilePart => ({
      type: "file",
      file: filename === undefined ? file : { ...file, filename },
    }),
  );

/** Audio parts (Chat Completions and Gemini hold them; Anthropic and Responses do not). */
export const arbAudioPart: fc.Arbitrary<AudioPart> = fc
  .tuple(fc.base64String({ minLength: 4, maxLength: 40 }), fc.constantFrom("wav", "mp3"))
  .map(
    ([data, format]): AudioPart => ({
      type: "input_audio",
      input_audio: { data, format: format as "wav" | "mp3" },
    }),
  );

/** User content with every part kind of Chat Completions: text, images, files and audio. */
export const arbMediaUserContent: fc.Arbitrary<ContentPart[]> = fc.array(
  fc.oneof(
    arbVisibleText.map((text): ContentPart => ({ type: "text", text })),
    arbImageUrl.map((url): ContentPart => ({ type: "image_url", image_url: { url } })),
    arbFilePart,
    arbAudioPart,
  ),
  { minLength: 1, maxLength: 4 },
);

// ---------------------------------------------------------------------------
// Messy canonical conversations (for repair)

type TurnSpec =
  | { kind: "user" | "system"; text: string }
  | { kind: "assistant"; text: string | null; calls: number };

const arbTurnSpec: fc.Arbitrary<TurnSpec> = fc.oneof(
  fc.record({ kind: fc.constant("user" as const), text: arbText }),
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("system" as const), text: arbText }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("assistant" as const),
      text: fc.option(arbText, { nil: null }),
      calls: fc.nat({ max: 4 }),
    }),
  },
);

type Mutation =
  | { op: "delete" | "duplicate"; at: number }
  | { op: "move"; at: number; to: number }
  | { op: "orphan"; to: number; id: string }
  | { op: "reuse_id"; at: number; from: number };

const arbMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("delete" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("duplicate" as const), at: fc.nat() }),
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("move" as const), at: fc.nat(), to: fc.nat() }),
  },
  fc.record({
    op: fc.constant("orphan" as const),
    to: fc.nat(),
    id: fc.oneof(fc.constantFrom("ghost", "c0", "c1", "c3"), fc.string({ maxLength: 5 })),
  }),
  fc.record({ op: fc.constant("reuse_id" as const), at: fc.nat(), from: fc.nat() }),
);

/** `idsPerTurn`: number calls afresh in every assistant message (`call_0`, `call_1`…), as some servers do. */
function buildValid(
  specs: readonly TurnSpec[],
  contents: readonly string[],
  idsPerTurn = false,
): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let counter = 0;
  let contentIndex = 0;
  const nextContent = (): string => contents[contentIndex++ % Math.max(contents.length, 1)] ?? "";
  for (const spec of specs) {
    if (spec.kind !== "assistant") {
      messages.push({ role: spec.kind, content: spec.text });
      continue;
    }
    if (idsPerTurn) counter = 0;
    // Every third call is a custom tool call (free-form input), as Codex's apply_patch.
    const calls: ToolCall[] = Array.from({ length: spec.calls }, (_, at): ToolCall => {
      const id = idsPerTurn ? `call_${counter++}` : `c${counter++}`;
      return at % 3 === 2
        ? {
            id,
            type: "custom",
            custom: { name: "apply_patch", input: `*** Begin Patch ${counter}` },
          }
        : {
            id,
            type: "function",
            function: { name: "bash", arguments: JSON.stringify({ n: counter }) },
          };
    });
    messages.push(
      calls.length > 0
        ? { role: "assistant", content: spec.text, tool_calls: calls }
        : { role: "assistant", content: spec.text },
    );
    for (const call of calls)
      messages.push({ role: "tool", content: nextContent(), tool_call_id: call.id });
  }
  return messages;
}

function mutate(messages: ChatMessage[], mutation: Mutation): ChatMessage[] {
  const out = [...messages];
  const toolIndices = out.flatMap((message, index) => (message.role === "tool" ? [index] : []));
  const pick = (n: number): number | undefined =>
    toolIndices.length === 0 ? undefined : toolIndices[n % toolIndices.length];
  switch (mutation.op) {
    case "delete": {
      const at = pick(mutation.at);
      if (at !== undefined) out.splice(at, 1);
      return out;
    }
    case "duplicate": {
      const at = pick(mutation.at);
      const message = at === undefined ? undefined : out[at];
      if (message) out.splice(mutation.at % (out.length + 1), 0, { ...message });
      return out;
    }
    case "move": {
      const at = pick(mutation.at);
      if (at === undefined) return out;
      const [message] = out.splice(at, 1);
      if (message) out.splice(mutation.to % (out.length + 1), 0, message);
      return out;
    }
    case "orphan":
      out.splice(mutation.to % (out.length + 1), 0, {
        role: "tool",
        content: "orphan output",
        tool_call_id: mutation.id,
      });
      return out;
    default: {
      const callers = out.flatMap((message, index) => (message.tool_calls?.length ? [index] : []));
      if (callers.length === 0) return out;
      const target = callers[mutation.at % callers.length] ?? 0;
      const source = callers[mutation.from % callers.length] ?? 0;
      const sourceId = out[source]?.tool_calls?.[0]?.id;
      const message = out[target];
      if (sourceId === undefined || !message?.tool_calls) return out;
      const [first, ...rest] = message.tool_calls;
      if (!first) return out;
      out[target] = { ...message, tool_calls: [{ ...first, id: sourceId }, ...rest] };
      return out;
    }
  }
}

/** Canonical conversations with broken tool structure: parallel calls, orphans, missing, moved, duplicated results, reused ids. */
export const arbMessyConversation: fc.Arbitrary<ChatMessage[]> = fc
  .tuple(
    fc.array(arbTurnSpec, { minLength: 1, maxLength: 12 }),
    fc.array(arbText, { minLength: 1, maxLength: 6 }),
    fc.array(arbMutation, { maxLength: 6 }),
  )
  .map(([specs, contents, mutations]) => mutations.reduce(mutate, buildValid(specs, contents)));

/** A turn spec that carries something: blank user text and text-less assistant replies get text. */
function withoutEmptyTurn(spec: TurnSpec): TurnSpec {
  if (spec.kind === "user" && spec.text.trim() === "") return { ...spec, text: "ok" };
  if (spec.kind === "assistant" && spec.calls === 0 && (spec.text ?? "").trim() === "")
    return { ...spec, text: "ok" };
  return spec;
}

/** Canonical conversations valid for OpenAI: tool structure, and no empty or blank turns. */
export const arbValidConversation: fc.Arbitrary<ChatMessage[]> = fc
  .tuple(
    fc.array(arbTurnSpec, { minLength: 1, maxLength: 12 }),
    fc.array(arbText, { minLength: 1, maxLength: 6 }),
  )
  .map(([specs, contents]) => buildValid(specs.map(withoutEmptyTurn), contents));

/**
 * Canonical conversations valid for OpenAI whose user messages may hold images, files and
 * audio (each user message of `arbValidConversation` in turn becomes one with media parts).
 */
export const arbMediaConversation: fc.Arbitrary<ChatMessage[]> = fc
  .tuple(arbValidConversation, fc.array(arbMediaUserContent, { minLength: 1, maxLength: 4 }))
  .map(([messages, contents]) => {
    let next = 0;
    return messages.map((message) => {
      if (message.role !== "user") return message;
      const content = contents[next++ % contents.length];
      return content === undefined ? message : { ...message, content };
    });
  });

/** Valid canonical conversations whose calls are numbered afresh every turn, so ids come back once answered. */
export const arbReusedIdConversation: fc.Arbitrary<ChatMessage[]> = fc
  .tuple(
    fc.array(arbTurnSpec, { minLength: 1, maxLength: 12 }),
    fc.array(arbText, { minLength: 1, maxLength: 6 }),
  )
  .map(([specs, contents]) => buildValid(specs.map(withoutEmptyTurn), contents, true));

// ---------------------------------------------------------------------------
// Anthropic requests

const arbCacheControl = fc.option(fc.constant({ type: "ephemeral" }), { nil: undefined });

/** `base` plus the extras that are defined (an absent key, not a key holding undefined). */
function withOptional(
  base: Record<string, unknown>,
  extras: Record<string, unknown>,
): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(extras)) if (value !== undefined) copy[key] = value;
  return copy;
}

const arbAnthropicText = fc
  .tuple(arbText, arbCacheControl, fc.option(fc.constant([]), { nil: undefined }))
  .map(([text, cache_control, citations]) =>
    withOptional({ type: "text", text }, { cache_control, citations }),
  );

const arbAnthropicImage = fc.oneof(
  fc.base64String({ minLength: 4, maxLength: 40 }).map((data) => ({
    type: "image",
    source: { type: "base64", media_type: "image/png", data },
  })),
  fc
    .constantFrom("https://example.com/cat.png")
    .map((url) => ({ type: "image", source: { type: "url", url } })),
);

const arbAnthropicDocument = fc
  .tuple(
    fc.oneof(
      arbPdfBase64.map((data) => ({ type: "base64", media_type: "application/pdf", data })),
      arbText.map((data) => ({ type: "text", media_type: "text/plain", data })),
      fc.constantFrom("https://example.com/a.pdf").map((url) => ({ type: "url", url })),
      fc.stringMatching(/^file_[A-Za-z0-9]{4,12}$/).map((file_id) => ({ type: "file", file_id })),
      fc.oneof(
        arbText.map((content): unknown => ({ type: "content", content })),
        fc
          .array(fc.oneof(arbAnthropicText, arbAnthropicImage), { minLength: 1, maxLength: 2 })
          .map((content) => ({ type: "content", content })),
      ),
    ),
    arbFilename,
    fc.option(fc.constantFrom("Q3 figures"), { nil: undefined }),
    fc.option(fc.constant({ enabled: true }), { nil: undefined }),
    arbCacheControl,
  )
  .map(([source, title, context, citations, cache_control]) =>
    withOptional({ type: "document", source }, { title, context, citations, cache_control }),
  );

const arbSearchResult = fc
  .tuple(
    fc.constantFrom("https://docs.example.com/widgets", "kb://article/42"),
    arbText,
    fc.array(arbAnthropicText, { minLength: 1, maxLength: 2 }),
    fc.option(fc.constant({ enabled: true }), { nil: undefined }),
  )
  .map(([source, title, content, citations]) =>
    withOptional({ type: "search_result", source, title, content }, { citations }),
  );

/** Blocks of a user turn besides tool results. */
const arbAnthropicUserBlock = fc.oneof(
  { weight: 4, arbitrary: arbAnthropicText },
  { weight: 2, arbitrary: arbAnthropicImage },
  { weight: 2, arbitrary: arbAnthropicDocument },
  arbSearchResult,
  fc
    .stringMatching(/^file_[A-Za-z0-9]{4,12}$/)
    .map((file_id) => ({ type: "container_upload", file_id })),
  fc
    .stringMatching(/^file_[A-Za-z0-9]{4,12}$/)
    .map((file_id) => ({ type: "image", source: { type: "file", file_id } })),
  // A block type the engine does not know (added after it was written).
  fc
    .tuple(arbJsonObject, arbCacheControl)
    .map(([payload, cache_control]) =>
      withOptional({ type: "future_block", payload }, { cache_control }),
    ),
);

/** A server tool's call and its result, as Anthropic returns them in an assistant turn. */
const arbServerToolBlocks = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9]{6,10}$/), arbText, fc.boolean())
  .map(([suffix, query, failed]) => [
    { type: "server_tool_use", id: `srvtoolu_${suffix}`, name: "web_search", input: { query } },
    {
      type: "web_search_tool_result",
      tool_use_id: `srvtoolu_${suffix}`,
      content: failed
        ? { type: "web_search_tool_result_error", error_code: "unavailable" }
        : [
            {
              type: "web_search_result",
              url: "https://example.com/hit",
              title: query,
              encrypted_content: "RW5jcnlwdGVk",
              page_age: null,
            },
          ],
    },
  ]);

const arbToolResultContent = fc.oneof(
  arbText.map((text): unknown => text),
  fc.array(
    fc.oneof(
      { weight: 4, arbitrary: arbAnthropicText },
      { weight: 2, arbitrary: arbAnthropicImage },
      arbAnthropicDocument,
      arbSearchResult,
      arbToolName.map((tool_name) => ({ type: "tool_reference", tool_name })),
    ),
    { minLength: 1, maxLength: 3 },
  ),
  fc.constant(undefined),
);

const arbThinking = fc.oneof(
  fc.record({
    type: fc.constant("thinking"),
    thinking: arbText,
    signature: fc.base64String({ maxLength: 12 }),
  }),
  fc.record({ type: fc.constant("redacted_thinking"), data: fc.base64String({ maxLength: 12 }) }),
);

interface AnthropicTurnSeed {
  userText: unknown;
  resultContents: unknown[];
  isErrors: Array<boolean | undefined>;
  assistant: unknown;
  calls: Array<{ name: string; input: Record<string, unknown> }>;
  order: number[];
  thinking: unknown[];
  /** Blocks of a server tool's call and result in the assistant turn. */
  server: unknown[];
  /** A system turn before the user turn (Claude Code sends them mid-conversation). */
  systemTurn: unknown;
}

/**
 * Valid Anthropic requests whose turns alternate and start with a user turn (tool_result blocks
 * first), with system turns between rounds, server-tool blocks and blocks of types the engine does
 * not know.
 */
export const arbAnthropicRequest: fc.Arbitrary<{ system?: unknown; messages: unknown[] }> = fc
  .tuple(
    fc.option(
      fc.oneof(
        arbText.map((text): unknown => text),
        fc.array(arbAnthropicText, { minLength: 1, maxLength: 2 }),
      ),
      {
        nil: undefined,
      },
    ),
    fc.array(
      fc.record({
        userText: fc.oneof(
          arbText.map((text): unknown => text),
          fc.array(arbAnthropicUserBlock, { minLength: 1, maxLength: 3 }),
          fc.constant(null),
        ),
        resultContents: fc.array(arbToolResultContent, { maxLength: 3 }),
        isErrors: fc.array(fc.option(fc.boolean(), { nil: undefined }), {
          minLength: 3,
          maxLength: 3,
        }),
        assistant: fc.oneof(
          arbText.map((text): unknown => text),
          fc.array(arbAnthropicText, { maxLength: 2 }),
        ),
        calls: fc.array(fc.record({ name: arbToolName, input: arbJsonObject }), { maxLength: 3 }),
        order: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
        thinking: fc.array(arbThinking, { maxLength: 2 }),
        server: fc.oneof(
          { weight: 3, arbitrary: fc.constant<unknown[]>([]) },
          { weight: 1, arbitrary: arbServerToolBlocks.map((blocks): unknown[] => blocks) },
        ),
        systemTurn: fc.oneof(
          { weight: 4, arbitrary: fc.constant(undefined) },
          {
            weight: 1,
            arbitrary: fc.oneof(
              arbVisibleText.map((text): unknown => text),
              fc.array(
                arbVisibleText.map((text) => ({ type: "text", text })),
                { minLength: 1, maxLength: 2 },
              ),
            ),
          },
        ),
      }),
      { minLength: 1, maxLength: 5 },
    ),
  )
  .map(([system, seeds]) => {
    const messages: unknown[] = [];
    let previousIds: string[] = [];
    let counter = 0;
    seeds.forEach((seed: AnthropicTurnSeed) => {
      const results = previousIds.map((id, index) =>
        withOptional(
          { type: "tool_result", tool_use_id: id },
          {
            content: seed.resultContents[index % Math.max(seed.resultContents.length, 1)],
            is_error: seed.isErrors[index % 3],
          },
        ),
      );
      const userBlocks: unknown[] = Array.isArray(seed.userText) ? seed.userText : [];
      if (seed.systemTurn !== undefined && messages.length > 0 && results.length === 0)
        messages.push({ role: "system", content: seed.systemTurn });
      if (results.length === 0) {
        messages.push({
          role: "user",
          content: seed.userText === null ? "hello" : seed.userText,
        });
      } else {
        const text =
          typeof seed.userText === "string" ? [{ type: "text", text: seed.userText }] : userBlocks;
        messages.push({ role: "user", content: [...results, ...text] });
      }
      const uses = seed.calls.map((call) => ({
        type: "tool_use",
        id: `toolu_${counter++}`,
        name: call.name,
        input: call.input,
      }));
      previousIds = uses.map((use) => use.id);
      if (
        typeof seed.assistant === "string" &&
        uses.length === 0 &&
        seed.thinking.length === 0 &&
        seed.server.length === 0
      ) {
        messages.push({ role: "assistant", content: seed.assistant });
        return;
      }
      const texts: unknown[] =
        typeof seed.assistant === "string"
          ? [{ type: "text", text: seed.assistant }]
          : (seed.assistant as unknown[]);
      const blocks = [...seed.thinking, ...texts, ...uses];
      // Shuffle deterministically from the seed so block order varies.
      const shuffled = blocks
        .map((block, index) => ({ block, key: seed.order[index % seed.order.length] ?? 0 }))
        .sort((a, b) => a.key - b.key)
        .map((entry) => entry.block);
      // A server tool's call and result stay together, in order, after any thinking.
      const content = [...shuffled, ...seed.server];
      messages.push({
        role: "assistant",
        content: content.length > 0 ? content : [{ type: "text", text: "ok" }],
      });
    });
    return system === undefined ? { messages } : { system, messages };
  });

// ---------------------------------------------------------------------------
// Responses items

const arbMaybeId = (prefix: string): fc.Arbitrary<string | undefined> =>
  fc.option(
    fc.stringMatching(/^[0-9a-f]{4,8}$/).map((hex) => `${prefix}_${hex}`),
    { nil: undefined },
  );

const arbInputFile = fc
  .tuple(
    fc.oneof(
      arbPdfBase64.map(
        (data): Record<string, unknown> => ({
          file_data: `data:application/pdf;base64,${data}`,
        }),
      ),
      fc.constantFrom("file-abc123", "file-XyZ").map((file_id) => ({ file_id })),
      fc.constantFrom("https://example.com/b.pdf").map((file_url) => ({ file_url })),
    ),
    arbFilename,
    fc.option(fc.constantFrom("auto", "low", "high"), { nil: undefined }),
  )
  .map(([source, filename, detail]) =>
    withOptional({ type: "input_file", ...source }, { filename, detail }),
  );

const arbInputPart = fc.oneof(
  { weight: 3, arbitrary: arbText.map((text) => ({ type: "input_text", text })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(arbImageUrl, fc.option(fc.constantFrom("auto", "low", "high"), { nil: undefined }))
      .map(([image_url, detail]) => withOptional({ type: "input_image", image_url }, { detail })),
  },
  arbInputFile,
);

const arbOutputPart = fc.oneof(
  fc
    .tuple(arbText, fc.option(fc.constant([]), { nil: undefined }))
    .map(([text, annotations]) => withOptional({ type: "output_text", text }, { annotations })),
  arbText.map((refusal) => ({ type: "refusal", refusal })),
);

const arbResponsesMessage = fc
  .tuple(
    fc.constantFrom("user", "assistant", "system", "developer"),
    fc.boolean(),
    arbMaybeId("msg"),
    fc.option(fc.constant("completed"), { nil: undefined }),
    arbText,
    fc.array(arbInputPart, { minLength: 1, maxLength: 3 }),
    fc.array(arbOutputPart, { minLength: 1, maxLength: 2 }),
    fc.boolean(),
  )
  .map(([role, typed, id, status, text, inputParts, outputParts, asString]) =>
    withOptional(
      { role, content: asString ? text : role === "assistant" ? outputParts : inputParts },
      { type: typed ? "message" : undefined, id, status },
    ),
  );

type ItemSeed =
  | { kind: "message"; item: unknown }
  | {
      kind: "call";
      name: string;
      args: Record<string, unknown>;
      id: string | undefined;
      pretty: boolean;
      /** A function call, a custom tool call (Codex's apply_patch), or item types the engine does not know. */
      flavor: "function" | "custom" | "local_shell" | "shell";
      /** A script the opaque calls carry (now and then huge). */
      script: string;
    }
  | { kind: "output"; output: unknown; back: number }
  | { kind: "reasoning"; summary: string; encrypted: string | undefined }
  | { kind: "compaction"; encrypted: string }
  | { kind: "opaque"; type: string; fields: Record<string, unknown> };

const arbItemSeed: fc.Arbitrary<ItemSeed> = fc.oneof(
  { weight: 3, arbitrary: arbResponsesMessage.map((item) => ({ kind: "message" as const, item })) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("call" as const),
      name: arbToolName,
      args: arbJsonObject,
      id: arbMaybeId("fc"),
      pretty: fc.boolean(),
      flavor: fc.constantFrom("function", "function", "custom", "local_shell", "shell"),
      script: arbText,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("output" as const),
      output: fc.oneof(
        arbText.map((text): unknown => text),
        fc.array(arbInputPart, { minLength: 1, maxLength: 2 }),
      ),
      back: fc.nat(),
    }),
  },
  fc.record({
    kind: fc.constant("reasoning" as const),
    summary: arbText,
    encrypted: fc.option(fc.base64String({ maxLength: 16 }), { nil: undefined }),
  }),
  fc.record({
    kind: fc.constant("compaction" as const),
    encrypted: fc.base64String({ minLength: 4, maxLength: 16 }),
  }),
  fc.record({
    kind: fc.constant("opaque" as const),
    type: fc.constantFrom("web_search_call", "image_generation_call", "item_kind_of_next_month"),
    fields: arbJsonObject,
  }),
);

/** The item a call seed makes, and the type of the output that answers it. */
function callItem(
  seed: Extract<ItemSeed, { kind: "call" }>,
  callId: string,
): { item: Record<string, unknown>; outputType: string } {
  const args = seed.pretty ? JSON.stringify(seed.args, null, 1) : JSON.stringify(seed.args);
  switch (seed.flavor) {
    case "custom":
      return {
        item: withOptional(
          { type: "custom_tool_call", call_id: callId, name: "apply_patch", input: args },
          { id: seed.id },
        ),
        outputType: "custom_tool_call_output",
      };
    case "local_shell":
    case "shell": {
      const type = seed.flavor === "shell" ? "shell_call" : "local_shell_call";
      return {
        item: withOptional(
          { type, call_id: callId, action: { command: [seed.name, seed.script], args } },
          { id: seed.id },
        ),
        outputType: `${type}_output`,
      };
    }
    default:
      return {
        item: withOptional(
          { type: "function_call", call_id: callId, name: seed.name, arguments: args },
          { id: seed.id },
        ),
        outputType: "function_call_output",
      };
  }
}

/**
 * Valid Responses input item lists (any order of items, at least one visible item): messages,
 * function calls, custom tool calls, calls and outputs of a type the engine does not know
 * (`local_shell_call`), items without a call (`web_search_call`, a type of next month), their
 * outputs, reasoning and compaction items.
 */
export const arbResponsesItems: fc.Arbitrary<unknown[]> = fc
  .array(arbItemSeed, { minLength: 1, maxLength: 14 })
  .map((seeds) => {
    const items: unknown[] = [];
    const calls: Array<{ id: string; outputType: string }> = [];
    seeds.forEach((seed, index) => {
      switch (seed.kind) {
        case "message":
          items.push(seed.item);
          return;
        case "call": {
          const callId = `call_${index}`;
          const { item, outputType } = callItem(seed, callId);
          calls.push({ id: callId, outputType });
          items.push(item);
          return;
        }
        case "output": {
          const answered = calls[seed.back % Math.max(calls.length, 1)];
          const type = answered?.outputType ?? "function_call_output";
          // Outputs of types the engine does not know have shapes of their own: local_shell's is
          // text, shell's a list of results.
          const text = typeof seed.output === "string" ? seed.output : JSON.stringify(seed.output);
          const output =
            type === "local_shell_call_output"
              ? text
              : type === "shell_call_output"
                ? [{ stdout: text, stderr: "", outcome: { type: "exit", exit_code: 0 } }]
                : seed.output;
          items.push({ type, call_id: answered?.id ?? "call_unknown", output });
          return;
        }
        case "opaque":
          items.push({ ...seed.fields, type: seed.type, id: `op_${index}` });
          return;
        case "reasoning":
          items.push(
            withOptional(
              {
                type: "reasoning",
                id: `rs_${index}`,
                summary: [{ type: "summary_text", text: seed.summary }],
              },
              { encrypted_content: seed.encrypted },
            ),
          );
          return;
        default:
          items.push({ type: "compaction", id: `cmp_${index}`, encrypted_content: seed.encrypted });
      }
    });
    const hasVisible = items.some(
      (item) =>
        typeof item === "object" &&
        item !== null &&
        (item as { type?: unknown }).type !== "reasoning" &&
        (item as { type?: unknown }).type !== "compaction",
    );
    return hasVisible ? items : [...items, { role: "user", content: "hello" }];
  });

// ---------------------------------------------------------------------------
// Canonical conversations in each format's normal form

const arbUserParts: fc.Arbitrary<ContentPart[]> = fc.array(
  fc.oneof(
    { weight: 3, arbitrary: arbVisibleText.map((text): ContentPart => ({ type: "text", text })) },
    {
      weight: 2,
      arbitrary: arbImageUrl.map((url): ContentPart => ({ type: "image_url", image_url: { url } })),
    },
    arbFilePart,
  ),
  { minLength: 1, maxLength: 3 },
);

const arbToolContent: fc.Arbitrary<string | ContentPart[]> = fc.oneof(
  arbText.map((text): string | ContentPart[] => text),
  fc.array(
    fc.oneof(
      { weight: 3, arbitrary: arbVisibleText.map((text): ContentPart => ({ type: "text", text })) },
      arbFilePart,
    ),
    { minLength: 1, maxLength: 2 },
  ),
);

interface CanonicalRoundSeed {
  user: string | ContentPart[] | null;
  results: Array<string | ContentPart[]>;
  assistant: string | ContentPart[] | null;
  calls: Array<{ name: string; input: Record<string, unknown> }>;
  thinking: unknown[];
}

const arbRoundSeed: fc.Arbitrary<CanonicalRoundSeed> = fc.record({
  user: fc.oneof(
    arbVisibleText.map((text): string | ContentPart[] | null => text),
    arbUserParts,
    fc.constant(null),
  ),
  results: fc.array(arbToolContent, { minLength: 3, maxLength: 3 }),
  assistant: fc.oneof(
    arbVisibleText.map((text): string | ContentPart[] | null => text),
    fc.array(
      arbVisibleText.map((text): ContentPart => ({ type: "text", text })),
      { minLength: 1, maxLength: 2 },
    ),
    fc.constant(null),
  ),
  calls: fc.array(fc.record({ name: arbToolName, input: arbJsonObject }), { maxLength: 3 }),
  thinking: fc.array(arbThinking, { maxLength: 2 }),
});

/**
 * Canonical conversations Anthropic can hold exactly (up to string ≡ one text
 * part): optional leading system string, alternating user/assistant turns
 * starting with user, results right after their calls, compact JSON arguments,
 * no blank text, no `name`, no image detail. `thinking` adds thinking blocks.
 */
export function arbAnthropicNormalConversation(thinking: boolean): fc.Arbitrary<ChatMessage[]> {
  return fc
    .tuple(
      fc.option(arbVisibleText, { nil: undefined }),
      fc.array(arbRoundSeed, { minLength: 1, maxLength: 5 }),
    )
    .map(([system, seeds]) => {
      const messages: ChatMessage[] =
        system === undefined ? [] : [{ role: "system", content: system }];
      let previous: ToolCall[] = [];
      let counter = 0;
      for (const seed of seeds) {
        previous.forEach((call, index) => {
          messages.push({
            role: "tool",
            content: seed.results[index % 3] ?? "",
            tool_call_id: call.id,
          });
        });
        if (previous.length === 0 || seed.user !== null) {
          messages.push({ role: "user", content: seed.user ?? "hello" });
        }
        const calls: ToolCall[] = seed.calls.map((call) => ({
          id: `toolu_${counter++}`,
          type: "function",
          function: { name: call.name, arguments: JSON.stringify(call.input) },
        }));
        const content = seed.assistant ?? (calls.length > 0 ? null : "done");
        const message: ChatMessage = { role: "assistant", content };
        if (calls.length > 0) message.tool_calls = calls;
        if (thinking && seed.thinking.length > 0)
          message.provider_data = { anthropic: { thinking: seed.thinking } };
        messages.push(message);
        previous = calls;
      }
      return messages;
    });
}

/**
 * Canonical conversations Responses can hold exactly: no two assistant
 * messages in a row, no `name`, assistant content non-null without calls and
 * null or non-empty with calls. Arguments may be any JSON text.
 */
export const arbResponsesNormalConversation: fc.Arbitrary<ChatMessage[]> = fc
  .array(
    fc.tuple(
      fc.constantFrom("system", "developer", "user", "user"),
      fc.oneof(
        arbText.map((text): string | ContentPart[] => text),
        arbUserParts,
      ),
      arbRoundSeed,
      fc.boolean(),
    ),
    { minLength: 1, maxLength: 5 },
  )
  .map((rounds) => {
    const messages: ChatMessage[] = [];
    let counter = 0;
    for (const [role, content, seed, pretty] of rounds) {
      messages.push({ role: role as "system" | "developer" | "user", content });
      const calls: ToolCall[] = seed.calls.map((call) => ({
        id: `call_${counter++}`,
        type: "function",
        function: {
          name: call.name,
          arguments: JSON.stringify(call.input, null, pretty ? 2 : undefined),
        },
      }));
      const text = seed.assistant ?? (calls.length > 0 ? null : "");
      const message: ChatMessage = { role: "assistant", content: text };
      if (calls.length > 0) message.tool_calls = calls;
      messages.push(message);
      calls.forEach((call, index) => {
        messages.push({
          role: "tool",
          content: seed.results[index % 3] ?? "",
          tool_call_id: call.id,
        });
      });
    }
    return messages;
  });
