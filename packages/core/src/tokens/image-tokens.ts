/**
 * @module tokens/image-tokens
 * Estimated input tokens of an `image_url` content part, by OpenAI's published rule for
 * GPT-4o-class models: `low` detail costs 85 tokens; `high` (and `auto`, counted as high
 * to stay on the safe side) costs 85 + 170 per 512-px tile after the image is scaled to fit
 * 2048x2048 and then down so its shorter side is at most 768 px.
 *
 * The dimensions are read from the header of a base64 `data:` URL (PNG, GIF, WebP, JPEG).
 * When they cannot be known (a remote URL, an unknown format, a JPEG whose size marker lies
 * beyond the first {@link IMAGE_HEADER_CHARS} characters) the part counts as 765 tokens,
 * the cost of a square image of 768 px or more.
 */

import type { ImagePart } from "../messages/types.js";

const LOW_DETAIL_TOKENS = 85;
const TILE_TOKENS = 170;
/** What a high-detail image of unknown size costs: a square of at least 768 px, 4 tiles. */
export const DEFAULT_IMAGE_TOKENS = 765;
/** How much of a data URL is read to find the dimensions; only this prefix affects the estimate. */
export const IMAGE_HEADER_CHARS = 65_536;

/** Estimated tokens for one image part. Depends only on `detail` and the first {@link IMAGE_HEADER_CHARS} characters of the URL. */
export function imageTokens(part: ImagePart): number {
  if (part.image_url.detail === "low") return LOW_DETAIL_TOKENS;
  const size = dataUrlImageSize(part.image_url.url);
  return size ? highDetailTokens(size.width, size.height) : DEFAULT_IMAGE_TOKENS;
}

function highDetailTokens(width: number, height: number): number {
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  // Small images are not scaled up: a 512x512 image is one tile.
  const shorten = Math.min(1, 768 / Math.min(w, h));
  w *= shorten;
  h *= shorten;
  const tiles = Math.ceil(w / 512) * Math.ceil(h / 512);
  return LOW_DETAIL_TOKENS + TILE_TOKENS * tiles;
}

interface Size {
  width: number;
  height: number;
}

const dataUrlPrefix = /^data:image\/[a-z0-9.+-]+;base64,/i;

/** Width and height from the header of a base64 image data URL, when they can be read. */
function dataUrlImageSize(url: string): Size | undefined {
  const prefix = dataUrlPrefix.exec(url.slice(0, 128));
  if (!prefix) return undefined;
  const start = prefix[0].length;
  let b64 = url.slice(start, Math.min(url.length, IMAGE_HEADER_CHARS));
  b64 = b64.slice(0, b64.length - (b64.length % 4));
  let bytes: string;
  try {
    bytes = atob(b64);
  } catch {
    return undefined;
  }
  const size = pngSize(bytes) ?? gifSize(bytes) ?? webpSize(bytes) ?? jpegSize(bytes);
  return size && size.width > 0 && size.height > 0 ? size : undefined;
}

function byte(bytes: string, i: number): number {
  return bytes.charCodeAt(i);
}

function u16be(bytes: string, i: number): number {
  return (byte(bytes, i) << 8) | byte(bytes, i + 1);
}

function u16le(bytes: string, i: number): number {
  return byte(bytes, i) | (byte(bytes, i + 1) << 8);
}

function u24le(bytes: string, i: number): number {
  return byte(bytes, i) | (byte(bytes, i + 1) << 8) | (byte(bytes, i + 2) << 16);
}

function u32be(bytes: string, i: number): number {
  return u16be(bytes, i) * 65536 + u16be(bytes, i + 2);
}

function pngSize(bytes: string): Size | undefined {
  if (
    bytes.length < 24 ||
    !bytes.startsWith("\x89PNG\r\n\x1a\n") ||
    bytes.slice(12, 16) !== "IHDR"
  ) {
    return undefined;
  }
  return { width: u32be(bytes, 16), height: u32be(bytes, 20) };
}

function gifSize(bytes: string): Size | undefined {
  if (bytes.length < 10 || !bytes.startsWith("GIF8")) return undefined;
  return { width: u16le(bytes, 6), height: u16le(bytes, 8) };
}

function webpSize(bytes: string): Size | undefined {
  if (bytes.length < 30 || !bytes.startsWith("RIFF") || bytes.slice(8, 12) !== "WEBP") {
    return undefined;
  }
  const chunk = bytes.slice(12, 16);
  if (chunk === "VP8 ") {
    return { width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff };
  }
  if (chunk === "VP8L") {
    const b1 = byte(bytes, 22);
    const b2 = byte(bytes, 23);
    const b3 = byte(bytes, 24);
    return {
      width: 1 + (((b1 & 0x3f) << 8) | byte(bytes, 21)),
      height: 1 + (((b3 & 0x0f) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)),
    };
  }
  if (chunk === "VP8X") {
    return { width: 1 + u24le(bytes, 24), height: 1 + u24le(bytes, 27) };
  }
  return undefined;
}

function jpegSize(bytes: string): Size | undefined {
  if (bytes.length < 4 || byte(bytes, 0) !== 0xff || byte(bytes, 1) !== 0xd8) return undefined;
  let i = 2;
  while (i + 9 < bytes.length) {
    if (byte(bytes, i) !== 0xff) return undefined;
    const marker = byte(bytes, i + 1);
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {
      i += 2; // markers without a length field
      continue;
    }
    // SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: u16be(bytes, i + 5), width: u16be(bytes, i + 7) };
    }
    i += 2 + u16be(bytes, i + 2);
  }
  return undefined;
}
