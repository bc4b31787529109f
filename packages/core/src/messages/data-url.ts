/**
 * @module messages/data-url
 * The `data:` URLs that carry a file's bytes in content parts (`file.file_data`,
 * `image_url.url`): their media type and payload, and the text of a text file.
 * Written by hand because neither runtime has a parser for them (`fetch` reads
 * them, asynchronously and whole) and only these few fields are needed.
 */

export interface DataUrl {
  /** Lowercase media type without its parameters (`text/plain` when the URL names none). */
  mediaType: string;
  /** Whether the payload is base64 (else it is percent-encoded). */
  base64: boolean;
  payload: string;
}

const DATA_URL = /^data:([^,]*),/i;

/** The parts of a `data:` URL, or undefined for anything else. */
export function parseDataUrl(url: string): DataUrl | undefined {
  const match = DATA_URL.exec(url.slice(0, 512));
  if (match === null) return undefined;
  const params = (match[1] ?? "").split(";");
  const mediaType = (params[0] ?? "").trim().toLowerCase() || "text/plain";
  const base64 = params.slice(1).some((param) => param.trim().toLowerCase() === "base64");
  return { mediaType, base64, payload: url.slice(match[0].length) };
}

/**
 * A file part's `file_data` as a data URL: bare base64 is read as a PDF, the only file type
 * OpenAI documents for Chat Completions' `file_data`.
 */
export function fileDataUrl(fileData: string): DataUrl {
  return (
    parseDataUrl(fileData) ?? { mediaType: "application/pdf", base64: true, payload: fileData }
  );
}

/** The bytes of base64 text as a binary string (one char per byte), or undefined when invalid. */
export function decodeBase64(payload: string): string | undefined {
  try {
    return atob(payload);
  } catch {
    return undefined;
  }
}

/** The UTF-8 text a data URL holds (base64 or percent-encoded), or undefined when unreadable. */
export function dataUrlText(url: DataUrl): string | undefined {
  if (!url.base64) {
    try {
      return decodeURIComponent(url.payload);
    } catch {
      return undefined;
    }
  }
  const bytes = decodeBase64(url.payload);
  if (bytes === undefined) return undefined;
  const array = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) array[i] = bytes.charCodeAt(i);
  return new TextDecoder().decode(array);
}

/** Base64 of the UTF-8 bytes of `text`. */
export function textToBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

const TEXT_APPLICATION_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/x-javascript",
  "application/typescript",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/sql",
  "application/x-sh",
  "application/csv",
]);

/** Whether a file of this media type is text (read as UTF-8). */
export function isTextMediaType(mediaType: string): boolean {
  return (
    mediaType.startsWith("text/") ||
    TEXT_APPLICATION_TYPES.has(mediaType) ||
    mediaType.endsWith("+json") ||
    mediaType.endsWith("+xml")
  );
}
