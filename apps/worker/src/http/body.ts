/**
 * @module http/body
 * Reads a JSON request body under the size limit: the content type must be
 * JSON (415), a declared `Content-Length` over the limit is refused before
 * reading, and the stream is counted while it is read so that a body without
 * (or lying about) its length is refused too (413). Invalid UTF-8 or JSON is
 * 400 `invalid_json`. A body that breaks off (the client hung up) is a
 * `ClientClosedError`, for `http/client-closed` to log.
 */

import { ApiError } from "../api/errors";
import { ClientClosedError } from "./client-closed";

export const MAX_BODY_BYTES = 16 * 1024 * 1024;

const jsonMediaType = /^application\/([\w.-]+\+)?json$/i;

function tooLarge(limit: number): ApiError {
  return new ApiError(
    413,
    "body_too_large",
    `request body is over ${limit} bytes (16 MiB); send fewer messages per request`,
    { limitBytes: limit },
  );
}

export interface JsonBody {
  value: unknown;
  /** The body as sent, for idempotency hashing. */
  text: string;
}

/**
 * The parsed body of `request`. An empty body reads as `{}` when `allowEmpty`
 * (routes whose every field is optional), whatever the content type.
 */
export async function readJsonBody(
  request: Request,
  options: { allowEmpty?: boolean; limit?: number } = {},
): Promise<JsonBody> {
  const limit = options.limit ?? MAX_BODY_BYTES;
  const declared = request.headers.get("Content-Length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);

  const bytes = await readLimited(request, limit);
  if (bytes.length === 0 && options.allowEmpty === true) return { value: {}, text: "" };

  const contentType = request.headers.get("Content-Type") ?? "";
  const mediaType = contentType.split(";")[0]?.trim() ?? "";
  if (!jsonMediaType.test(mediaType)) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      `send the body as JSON with \`Content-Type: application/json\` (got ${contentType === "" ? "none" : JSON.stringify(contentType)})`,
    );
  }

  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ApiError(400, "invalid_json", "request body is not valid UTF-8");
  }
  try {
    return { value: JSON.parse(text) as unknown, text };
  } catch (error) {
    const detail = error instanceof Error ? error.message : "parse error";
    throw new ApiError(400, "invalid_json", `request body is not valid JSON: ${detail}`);
  }
}

async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  try {
    return await readWhole(request, limit);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    // Only the client's side of the connection can break a body off while it is read.
    throw new ClientClosedError({ cause: error });
  }
}

async function readWhole(request: Request, limit: number): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array(0);
  // A declared length (checked against the limit above) is enforced by the runtime: the body is read
  // whole in one step, not chunk by chunk (a 500 KB history arrives in some thirty chunks).
  if (request.headers.get("Content-Length") !== null) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > limit) throw tooLarge(limit);
    return bytes;
  }
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return bytes;
}
