/**
 * @module messages/parse-content
 * Reads the `content` of an untrusted message: a string, `null` (assistant
 * messages only), or Chat Completions content parts: `text`, `image_url`,
 * `file` (`file_data` as a `data:` URL, or `file_id`; `filename`) and
 * `input_audio` (base64 `data`, `format` wav or mp3). Images, files and audio
 * are user input: other roles may not carry them.
 */

import {
  field,
  isRecord,
  type ProblemCollector,
  quote,
  toWellFormed,
  typeName,
} from "./input-checks.js";
import type { ContentPart, FilePart, MessageContent, Role } from "./types.js";

const DETAILS = ["auto", "low", "high"] as const;
const AUDIO_FORMATS = ["wav", "mp3"] as const;

export function parseContent(
  raw: unknown,
  role: Role | undefined,
  index: number,
  problems: ProblemCollector,
): MessageContent | undefined {
  if (typeof raw === "string") return toWellFormed(raw);
  if (raw === undefined || raw === null) {
    // Only assistant messages may omit content (a turn that only calls tools).
    if (role === "assistant" || role === undefined) return null;
    problems.add(
      index,
      "content",
      "missing_content",
      `a ${role} message needs \`content\`; send a string ("" for an empty message)`,
    );
    return undefined;
  }
  if (!Array.isArray(raw)) {
    problems.add(
      index,
      "content",
      "invalid_content",
      `\`content\` must be a string, an array of content parts or null, got ${typeName(raw)}`,
    );
    return undefined;
  }
  if (raw.length === 0) {
    problems.add(
      index,
      "content",
      "empty_content_parts",
      'content parts must not be empty; send a string instead ("" for an empty message)',
    );
    return undefined;
  }
  const parts: ContentPart[] = [];
  let ok = true;
  for (let partIndex = 0; partIndex < raw.length; partIndex++) {
    const part = parsePart(raw[partIndex], role, index, `content[${partIndex}]`, problems);
    if (part) parts.push(part);
    else ok = false;
  }
  return ok ? parts : undefined;
}

function parsePart(
  raw: unknown,
  role: Role | undefined,
  index: number,
  path: string,
  problems: ProblemCollector,
): ContentPart | undefined {
  if (!isRecord(raw)) {
    problems.add(
      index,
      path,
      "invalid_part",
      `a content part must be an object like { "type": "text", "text": "..." }, got ${typeName(raw)}`,
    );
    return undefined;
  }
  const type = field(raw, "type");
  if (type === "text") {
    const text = field(raw, "text");
    if (typeof text !== "string") {
      problems.add(
        index,
        `${path}.text`,
        "invalid_part",
        `a text part needs a string \`text\`, got ${typeName(text)}`,
      );
      return undefined;
    }
    return { type: "text", text: toWellFormed(text) };
  }
  if (type === "image_url") return parseImagePart(raw, role, index, path, problems);
  if (type === "file") return parseFilePart(raw, role, index, path, problems);
  if (type === "input_audio") return parseAudioPart(raw, role, index, path, problems);
  const fix =
    type === "input_text" ||
    type === "output_text" ||
    type === "input_image" ||
    type === "input_file"
      ? `\`${type}\` is a Responses API part; in Chat Completions use { "type": "text", "text": "..." }, { "type": "image_url", ... } or { "type": "file", ... }, or send the input with format "responses"`
      : 'use { "type": "text", "text": "..." }, { "type": "image_url", "image_url": { "url": "..." } }, { "type": "file", "file": { "file_data": "data:application/pdf;base64,..." } } or { "type": "input_audio", "input_audio": { "data": "...", "format": "wav" } }';
  problems.add(
    index,
    `${path}.type`,
    "unknown_part_type",
    `unsupported content part type ${quote(type)}; ${fix}`,
  );
  return undefined;
}

function parseImagePart(
  raw: Record<string, unknown>,
  role: Role | undefined,
  index: number,
  path: string,
  problems: ProblemCollector,
): ContentPart | undefined {
  if (role !== undefined && role !== "user") {
    problems.add(
      index,
      path,
      "image_not_allowed",
      `image parts are only allowed in user messages, not in a ${role} message; move the image into a user message`,
    );
    return undefined;
  }
  const image = field(raw, "image_url");
  if (!isRecord(image)) {
    problems.add(
      index,
      `${path}.image_url`,
      "invalid_part",
      `an image part needs \`image_url\` as an object { "url": "..." }, got ${typeName(image)}`,
    );
    return undefined;
  }
  const url = field(image, "url");
  if (typeof url !== "string" || url === "") {
    problems.add(
      index,
      `${path}.image_url.url`,
      "invalid_part",
      `an image part needs a non-empty string \`url\` (https or data URL), got ${typeName(url)}`,
    );
    return undefined;
  }
  const detail = field(image, "detail");
  if (detail === undefined || detail === null) {
    return { type: "image_url", image_url: { url: toWellFormed(url) } };
  }
  const known = DETAILS.find((value) => value === detail);
  if (known === undefined) {
    problems.add(
      index,
      `${path}.image_url.detail`,
      "invalid_part",
      `unknown image detail ${quote(detail)}; use auto, low or high, or leave it out`,
    );
    return undefined;
  }
  return { type: "image_url", image_url: { url: toWellFormed(url), detail: known } };
}

/** Files and audio are user input, like images (Chat Completions takes them in user messages only). */
function userOnly(
  what: string,
  kind: string,
  role: Role | undefined,
  index: number,
  path: string,
  problems: ProblemCollector,
): boolean {
  if (role === undefined || role === "user") return true;
  problems.add(
    index,
    path,
    kind,
    `${what} parts are only allowed in user messages, not in a ${role} message; move it into a user message`,
  );
  return false;
}

/** An optional non-empty string field of a part: the string, `undefined` when absent, `false` when wrong. */
function optionalText(
  record: Record<string, unknown>,
  key: string,
  index: number,
  path: string,
  problems: ProblemCollector,
): string | undefined | false {
  const value = field(record, key);
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string" && value !== "") return toWellFormed(value);
  problems.add(
    index,
    `${path}.${key}`,
    "invalid_part",
    `\`${key}\` must be a non-empty string, got ${typeName(value)}; send it or leave it out`,
  );
  return false;
}

function parseFilePart(
  raw: Record<string, unknown>,
  role: Role | undefined,
  index: number,
  path: string,
  problems: ProblemCollector,
): ContentPart | undefined {
  if (!userOnly("file", "file_not_allowed", role, index, path, problems)) return undefined;
  const file = field(raw, "file");
  if (!isRecord(file)) {
    problems.add(
      index,
      `${path}.file`,
      "invalid_part",
      `a file part needs \`file\` as an object { "file_data": "data:application/pdf;base64,..." } or { "file_id": "..." }, got ${typeName(file)}`,
    );
    return undefined;
  }
  const at = `${path}.file`;
  const data = optionalText(file, "file_data", index, at, problems);
  const id = optionalText(file, "file_id", index, at, problems);
  const name = optionalText(file, "filename", index, at, problems);
  if (data === false || id === false || name === false) return undefined;
  if (data === undefined && id === undefined) {
    problems.add(
      index,
      at,
      "invalid_part",
      "a file part needs the file's bytes as `file_data` (a data: URL such as data:application/pdf;base64,...) or an uploaded file's `file_id`",
    );
    return undefined;
  }
  const kept: FilePart["file"] = {};
  if (data !== undefined) kept.file_data = data;
  if (id !== undefined) kept.file_id = id;
  if (name !== undefined) kept.filename = name;
  return { type: "file", file: kept };
}

function parseAudioPart(
  raw: Record<string, unknown>,
  role: Role | undefined,
  index: number,
  path: string,
  problems: ProblemCollector,
): ContentPart | undefined {
  if (!userOnly("audio", "audio_not_allowed", role, index, path, problems)) return undefined;
  const audio = field(raw, "input_audio");
  if (!isRecord(audio)) {
    problems.add(
      index,
      `${path}.input_audio`,
      "invalid_part",
      `an audio part needs \`input_audio\` as an object { "data": "<base64>", "format": "wav" }, got ${typeName(audio)}`,
    );
    return undefined;
  }
  const at = `${path}.input_audio`;
  const data = field(audio, "data");
  const format = field(audio, "format");
  let ok = true;
  if (typeof data !== "string" || data === "") {
    problems.add(
      index,
      `${at}.data`,
      "invalid_part",
      `an audio part needs its base64 bytes as a non-empty string \`data\`, got ${typeName(data)}`,
    );
    ok = false;
  }
  const known = AUDIO_FORMATS.find((value) => value === format);
  if (known === undefined) {
    problems.add(
      index,
      `${at}.format`,
      "invalid_part",
      `unknown audio format ${quote(format)}; Chat Completions takes wav or mp3 (send other audio as a file part)`,
    );
    ok = false;
  }
  if (!ok || typeof data !== "string" || known === undefined) return undefined;
  return { type: "input_audio", input_audio: { data: toWellFormed(data), format: known } };
}
