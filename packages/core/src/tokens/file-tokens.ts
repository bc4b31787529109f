/**
 * @module tokens/file-tokens
 * Estimated input tokens of the `file` and `input_audio` content parts. Providers
 * publish no exact rule for either, so these are documented estimates, on the safe
 * side like images counted at high detail:
 *
 * - **PDFs** are counted by pages: Anthropic's PDF guide puts a page at 1,500–3,000
 *   tokens (its text and an image of it), and OpenAI likewise sends each page's text
 *   and an image of it; a page counts {@link PDF_PAGE_TOKENS} (3,000, the upper end).
 *   The page count is read from the file without parsing it: a linearized PDF's `/N`,
 *   else the number of `/Type /Page` objects, else the page tree's largest `/Count`
 *   (pages stored in compressed object streams show only that); when none is there,
 *   a page per {@link BYTES_PER_UNKNOWN_PAGE} bytes.
 * - **Text files** (`text/*`, JSON, XML, YAML, …) are decoded (UTF-8) and counted as
 *   text, exactly.
 * - **Other files** (Word, spreadsheets, …) count as PDFs whose pages are unknown: a
 *   page per {@link BYTES_PER_UNKNOWN_PAGE} bytes.
 * - **A file known only by its id** counts one page: its size is not known here.
 * - **Audio** counts {@link AUDIO_TOKENS_PER_SECOND} (10) tokens per second, what
 *   OpenAI's audio models charge (a token per 100 ms). The duration comes from the
 *   header: a WAV's byte rate and data size, an MP3's first frame's bit rate (after an
 *   ID3 tag); otherwise 128 kbit/s is assumed.
 *
 * A file's `filename` is counted as text on top. The estimates read the whole
 * `file_data` (page objects can be anywhere), so the token cache hashes all of it.
 */

import { dataUrlText, decodeBase64, fileDataUrl, isTextMediaType } from "../messages/data-url.js";
import type { AudioPart, FilePart } from "../messages/types.js";

/** Tokens one PDF page counts. */
export const PDF_PAGE_TOKENS = 3_000;
/** Bytes per page assumed when a document's pages cannot be read. */
export const BYTES_PER_UNKNOWN_PAGE = 64 * 1024;
/** Tokens one second of audio counts. */
export const AUDIO_TOKENS_PER_SECOND = 10;
/** 128 kbit/s: the rate assumed for audio whose header cannot be read. */
const DEFAULT_AUDIO_BYTES_PER_SECOND = 16_000;

/** Estimated tokens of a file part; `countText` counts text for the request's model. */
export function fileTokens(part: FilePart, countText: (text: string) => number): number {
  const { file_data: data, filename } = part.file;
  const name = filename === undefined ? 0 : countText(filename);
  if (data === undefined) return PDF_PAGE_TOKENS + name;
  const url = fileDataUrl(data);
  if (isTextMediaType(url.mediaType)) {
    const body = dataUrlText(url);
    if (body !== undefined) return countText(body) + name;
  }
  const size = url.base64 ? base64Size(url.payload) : url.payload.length;
  const bytes =
    url.mediaType === "application/pdf" && url.base64 ? decodeBase64(url.payload) : undefined;
  const pages =
    (bytes === undefined ? undefined : pdfPages(bytes)) ??
    Math.max(1, Math.ceil(size / BYTES_PER_UNKNOWN_PAGE));
  return pages * PDF_PAGE_TOKENS + name;
}

/** Estimated tokens of an audio part. */
export function audioTokens(part: AudioPart): number {
  const { data, format } = part.input_audio;
  const size = base64Size(data);
  const seconds =
    (format === "wav" ? wavSeconds(data, size) : mp3Seconds(data, size)) ??
    size / DEFAULT_AUDIO_BYTES_PER_SECOND;
  return Math.max(1, Math.ceil(seconds * AUDIO_TOKENS_PER_SECOND));
}

// ---------------------------------------------------------------------------
// file_data

/** Bytes a base64 string decodes to, from its length alone. */
function base64Size(payload: string): number {
  let padding = 0;
  if (payload.endsWith("==")) padding = 2;
  else if (payload.endsWith("=")) padding = 1;
  return Math.max(0, Math.floor((payload.length * 3) / 4) - padding);
}

// A page object's type name, not the page tree's (`/Pages`).
const PAGE_OBJECT = /\/Type\s*\/Page(?![A-Za-z0-9])/g;
const LINEARIZED_PAGES = /\/Linearized\b[^>]{0,512}?\/N\s+(\d+)/;
const PAGE_COUNT = /\/Count\s+(\d+)/g;

/** A PDF's page count, when its structure shows it. */
function pdfPages(bytes: string): number | undefined {
  const linearized = LINEARIZED_PAGES.exec(bytes.slice(0, 2048));
  const declared = Number(linearized?.[1] ?? 0);
  if (declared > 0) return declared;
  const objects = bytes.match(PAGE_OBJECT)?.length ?? 0;
  if (objects > 0) return objects;
  let count = 0;
  for (const match of bytes.matchAll(PAGE_COUNT)) count = Math.max(count, Number(match[1]));
  return count > 0 ? count : undefined;
}

// ---------------------------------------------------------------------------
// audio

/** `length` bytes of a base64 string from byte `start`, decoding only that stretch. */
function bytesAt(data: string, start: number, length: number): string {
  // base64 maps every 3 bytes to 4 characters, so a stretch decodes on its own.
  const from = Math.floor(start / 3) * 4;
  const to = from + Math.ceil((length + (start % 3)) / 3) * 4;
  let chunk = data.slice(from, to);
  chunk = chunk.slice(0, chunk.length - (chunk.length % 4));
  const decoded = decodeBase64(chunk) ?? "";
  return decoded.slice(start % 3, (start % 3) + length);
}

function u32le(bytes: string, at: number): number {
  return (
    (bytes.charCodeAt(at) |
      (bytes.charCodeAt(at + 1) << 8) |
      (bytes.charCodeAt(at + 2) << 16) |
      (bytes.charCodeAt(at + 3) << 24)) >>>
    0
  );
}

/** Duration of a WAV file: its data chunk's size over the byte rate of its `fmt ` chunk. */
function wavSeconds(data: string, size: number): number | undefined {
  const header = bytesAt(data, 0, 4096);
  if (!header.startsWith("RIFF") || header.slice(8, 12) !== "WAVE") return undefined;
  let byteRate = 0;
  let dataBytes: number | undefined;
  for (let at = 12; at + 8 <= header.length; ) {
    const id = header.slice(at, at + 4);
    const chunkSize = u32le(header, at + 4);
    if (id === "fmt " && at + 16 <= header.length) byteRate = u32le(header, at + 16);
    if (id === "data") {
      // A streamed WAV leaves the size at 0 or 0xFFFFFFFF: the rest of the file is data.
      const rest = size - (at + 8);
      dataBytes = chunkSize === 0 || chunkSize > rest ? rest : chunkSize;
      break;
    }
    at += 8 + chunkSize + (chunkSize % 2);
  }
  if (byteRate === 0) return undefined;
  return (dataBytes ?? size - 44) / byteRate;
}

// Bit rates in kbit/s by bit-rate index, per MPEG version and layer (ISO 11172-3, 13818-3).
const MPEG1_BITRATES: Record<number, readonly number[]> = {
  1: [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  2: [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  3: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
};
const MPEG2_BITRATES: Record<number, readonly number[]> = {
  1: [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  3: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};

/** Duration of an MP3 at the bit rate of its first frame (after an ID3v2 tag, if any). */
function mp3Seconds(data: string, size: number): number | undefined {
  let start = 0;
  const tag = bytesAt(data, 0, 10);
  if (tag.startsWith("ID3") && tag.length === 10) {
    const syncsafe = [6, 7, 8, 9].reduce((sum, at) => sum * 128 + (tag.charCodeAt(at) & 0x7f), 0);
    const footer = (tag.charCodeAt(5) & 0x10) !== 0 ? 10 : 0;
    start = 10 + syncsafe + footer;
  }
  const head = bytesAt(data, start, 4096);
  for (let at = 0; at + 3 < head.length; at++) {
    const b1 = head.charCodeAt(at + 1);
    if (head.charCodeAt(at) !== 0xff || (b1 & 0xe0) !== 0xe0) continue;
    const version = (b1 >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5, 1: reserved
    const layer = 4 - ((b1 >> 1) & 3); // 1, 2 or 3 (4: reserved)
    const table = version === 3 ? MPEG1_BITRATES[layer] : MPEG2_BITRATES[layer];
    const kbps = version === 1 ? undefined : table?.[head.charCodeAt(at + 2) >> 4];
    if (kbps === undefined || kbps === 0) continue;
    return ((size - start - at) * 8) / (kbps * 1000);
  }
  return undefined;
}
