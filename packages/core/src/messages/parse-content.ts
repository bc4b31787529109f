/**
 * @module messages/parse-content
 * Reads the `content` of an untrusted message: a string, `null` (assistant
 * messages only), or Chat Completions content parts: `text`, `image_url`,
 * `file` (`file_data` as a `data:` URL, or `file_id`; `filename`) and
 * `input_audio` (base64 `data`, `format` wav or mp3). Images, files and audio
 * are user input: other roles may not carry them.
 */

import { field, isRecord, quote, type Report, toWellFormed, typeName } from "./input-checks.js";
import type { ContentPart, FilePart, MessageContent, Role } from "./types.js";

const DETAILS = ["auto", "low", "high"] as const;
const AUDIO_FORMATS = ["wav", "mp3"] as const;

/** Where a part stands: the role of its message, its path, and where its problems go. */
interface PartSite {
  role: Role | undefined;
  path: string;
  report: Report;
}

/** A message's content, well formed; undefined when it is wrong (each problem reported). */
export function parseContent(
  raw: unknown,
  role: Role | undefined,
  report: Report,
): MessageContent | undefined {
  if (typeof raw === "string") return toWellFormed(raw);
  if (raw === undefined || raw === null) {
    // Only assistant messages may omit content (a turn that only calls tools).
    if (role === "assistant" || role === undefined) return null;
    return report(
      "content",
      "missing_content",
      `a ${role} message needs \`content\`; send a string ("" for an empty message)`,
    );
  }
  if (!Array.isArray(raw)) {
    return report(
      "content",
      "invalid_content",
      `\`content\` must be a string, an array of content parts or null, got ${typeName(raw)}`,
    );
  }
  if (raw.length === 0) {
    return report(
      "content",
      "empty_content_parts",
      'content parts must not be empty; send a string instead ("" for an empty message)',
    );
  }
  const parts: ContentPart[] = [];
  let ok = true;
  for (let partIndex = 0; partIndex < raw.length; partIndex++) {
    const part = parsePart(raw[partIndex], { role, path: `content[${partIndex}]`, report });
    if (part) parts.push(part);
    else ok = false;
  }
  return ok ? parts : undefined;
}

function parsePart(raw: unknown, site: PartSite): ContentPart | undefined {
  const { path, report } = site;
  if (!isRecord(raw)) {
    return report(
      path,
      "invalid_part",
      `a content part must be an object like { "type": "text", "text": "..." }, got ${typeName(raw)}`,
    );
  }
  const type = field(raw, "type");
  if (type === "text") {
    const text = field(raw, "text");
    if (typeof text === "string") return { type: "text", text: toWellFormed(text) };
    return report(
      `${path}.text`,
      "invalid_part",
      `a text part needs a string \`text\`, got ${typeName(text)}`,
    );
  }
  if (type === "image_url") return parseImagePart(raw, site);
  if (type === "file") return parseFilePart(raw, site);
  if (type === "input_audio") return parseAudioPart(raw, site);
  const fix =
    type === "input_text" ||
    type === "output_text" ||
    type === "input_image" ||
    type === "input_file"
      ? `\`${type}\` is a Responses API part; in Chat Completions use { "type": "text", "text": "..." }, { "type": "image_url", ... } or { "type": "file", ... }, or send the input with format "responses"`
      : 'use { "type": "text", "text": "..." }, { "type": "image_url", "image_url": { "url": "..." } }, { "type": "file", "file": { "file_data": "data:application/pdf;base64,..." } } or { "type": "input_audio", "input_audio": { "data": "...", "format": "wav" } }';
  return report(
    `${path}.type`,
    "unknown_part_type",
    `unsupported content part type ${quote(type)}; ${fix}`,
  );
}

/** The user-only parts: the key of the object each holds, and that object's shape for errors. */
const MEDIA = {
  image: { key: "image_url", part: "an image part", shape: '{ "url": "..." }' },
  file: {
    key: "file",
    part: "a file part",
    shape: '{ "file_data": "data:application/pdf;base64,..." } or { "file_id": "..." }',
  },
  audio: {
    key: "input_audio",
    part: "an audio part",
    shape: '{ "data": "<base64>", "format": "wav" }',
  },
} as const;

/**
 * The object an image, file or audio part holds, when the part may stand where it does: these
 * are user input (Chat Completions takes them in user messages only).
 */
function userPartObject(
  raw: Record<string, unknown>,
  site: PartSite,
  what: keyof typeof MEDIA,
): Record<string, unknown> | undefined {
  const { role, path, report } = site;
  if (role !== undefined && role !== "user") {
    return report(
      path,
      `${what}_not_allowed`,
      `${what} parts are only allowed in user messages, not in a ${role} message; move it into a user message`,
    );
  }
  const { key, part, shape } = MEDIA[what];
  const value = field(raw, key);
  if (isRecord(value)) return value;
  return report(
    `${path}.${key}`,
    "invalid_part",
    `${part} needs \`${key}\` as an object ${shape}, got ${typeName(value)}`,
  );
}

function parseImagePart(raw: Record<string, unknown>, site: PartSite): ContentPart | undefined {
  const image = userPartObject(raw, site, "image");
  if (image === undefined) return undefined;
  const at = `${site.path}.image_url`;
  const url = field(image, "url");
  if (typeof url !== "string" || url === "") {
    return site.report(
      `${at}.url`,
      "invalid_part",
      `an image part needs a non-empty string \`url\` (https or data URL), got ${typeName(url)}`,
    );
  }
  const detail = field(image, "detail");
  if (detail === undefined || detail === null) {
    return { type: "image_url", image_url: { url: toWellFormed(url) } };
  }
  const known = DETAILS.find((value) => value === detail);
  if (known === undefined) {
    return site.report(
      `${at}.detail`,
      "invalid_part",
      `unknown image detail ${quote(detail)}; use auto, low or high, or leave it out`,
    );
  }
  return { type: "image_url", image_url: { url: toWellFormed(url), detail: known } };
}

/** An optional non-empty string field of a part: the string, `undefined` when absent, `false` when wrong. */
function optionalText(
  record: Record<string, unknown>,
  key: string,
  at: string,
  report: Report,
): string | undefined | false {
  const value = field(record, key);
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string" && value !== "") return toWellFormed(value);
  report(
    `${at}.${key}`,
    "invalid_part",
    `\`${key}\` must be a non-empty string, got ${typeName(value)}; send it or leave it out`,
  );
  return false;
}

function parseFilePart(raw: Record<string, unknown>, site: PartSite): ContentPart | undefined {
  const file = userPartObject(raw, site, "file");
  if (file === undefined) return undefined;
  const at = `${site.path}.file`;
  const data = optionalText(file, "file_data", at, site.report);
  const id = optionalText(file, "file_id", at, site.report);
  const name = optionalText(file, "filename", at, site.report);
  if (data === false || id === false || name === false) return undefined;
  if (data === undefined && id === undefined) {
    return site.report(
      at,
      "invalid_part",
      "a file part needs the file's bytes as `file_data` (a data: URL such as data:application/pdf;base64,...) or an uploaded file's `file_id`",
    );
  }
  const kept: FilePart["file"] = {};
  if (data !== undefined) kept.file_data = data;
  if (id !== undefined) kept.file_id = id;
  if (name !== undefined) kept.filename = name;
  return { type: "file", file: kept };
}

function parseAudioPart(raw: Record<string, unknown>, site: PartSite): ContentPart | undefined {
  const audio = userPartObject(raw, site, "audio");
  if (audio === undefined) return undefined;
  const at = `${site.path}.input_audio`;
  const data = field(audio, "data");
  const format = field(audio, "format");
  const known = AUDIO_FORMATS.find((value) => value === format);
  if (typeof data !== "string" || data === "") {
    site.report(
      `${at}.data`,
      "invalid_part",
      `an audio part needs its base64 bytes as a non-empty string \`data\`, got ${typeName(data)}`,
    );
  }
  if (known === undefined) {
    site.report(
      `${at}.format`,
      "invalid_part",
      `unknown audio format ${quote(format)}; Chat Completions takes wav or mp3 (send other audio as a file part)`,
    );
  }
  if (typeof data !== "string" || data === "" || known === undefined) return undefined;
  return { type: "input_audio", input_audio: { data: toWellFormed(data), format: known } };
}
