import { describe, expect, it } from "vitest";
import type { ImagePart } from "../messages/types.js";
import { DEFAULT_IMAGE_TOKENS, IMAGE_HEADER_CHARS, imageTokens } from "./image-tokens.js";

function bytesToDataUrl(mime: string, bytes: number[]): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 4096) {
    binary += String.fromCharCode(...bytes.slice(i, i + 4096));
  }
  return `data:${mime};base64,${btoa(binary)}`;
}

function zeros(count: number): number[] {
  return Array.from({ length: count }, () => 0);
}

function be32(n: number): number[] {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

function png(width: number, height: number): string {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  const ihdr = [...be32(13), ...[0x49, 0x48, 0x44, 0x52], ...be32(width), ...be32(height)];
  return bytesToDataUrl("image/png", [...signature, ...ihdr, 8, 6, 0, 0, 0, 0, 0, 0, 0]);
}

function gif(width: number, height: number): string {
  const header = [...new TextEncoder().encode("GIF89a")];
  return bytesToDataUrl("image/gif", [
    ...header,
    width & 0xff,
    width >> 8,
    height & 0xff,
    height >> 8,
    0,
    0,
    0,
  ]);
}

function jpeg(width: number, height: number, app1Length = 16): string {
  const app1 = [0xff, 0xe1, app1Length >> 8, app1Length & 0xff, ...zeros(app1Length - 2)];
  const sof0 = [0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff];
  return bytesToDataUrl("image/jpeg", [0xff, 0xd8, ...app1, ...sof0, 3, 1, 0x22, 0, 2, 0x11, 1]);
}

function riff(chunk: string, body: number[]): string {
  const ascii = (s: string) => [...new TextEncoder().encode(s)];
  const payload = [...ascii("WEBP"), ...ascii(chunk), ...[0, 0, 0, 0], ...body];
  return bytesToDataUrl("image/webp", [...ascii("RIFF"), 0, 0, 0, 0, ...payload, ...zeros(16)]);
}

function part(url: string, detail?: "low" | "high" | "auto"): ImagePart {
  return { type: "image_url", image_url: detail ? { url, detail } : { url } };
}

describe("imageTokens", () => {
  it("charges 85 tokens for low detail whatever the size", () => {
    expect(imageTokens(part(png(4000, 3000), "low"))).toBe(85);
    expect(imageTokens(part("https://example.com/cat.png", "low"))).toBe(85);
  });

  it("charges the 4-tile default for images whose size cannot be read", () => {
    expect(DEFAULT_IMAGE_TOKENS).toBe(765);
    expect(imageTokens(part("https://example.com/cat.png"))).toBe(765);
    expect(imageTokens(part("https://example.com/cat.png", "high"))).toBe(765);
    expect(imageTokens(part("data:image/png;base64,not*valid*base64"))).toBe(765);
    expect(imageTokens(part("data:image/bmp;base64,Qk0AAAAA"))).toBe(765);
    expect(imageTokens(part("data:text/plain;base64,aGVsbG8="))).toBe(765);
  });

  // 85 + 170 per 512-px tile after fitting in 2048x2048 and shortening the short side to 768.
  const sizes: Array<[width: number, height: number, tokens: number]> = [
    [100, 100, 255], // one tile, not scaled up
    [512, 512, 255],
    [513, 512, 425], // two tiles
    [768, 768, 765],
    [1024, 1024, 765], // scaled to 768x768: 4 tiles
    [2048, 4096, 1105], // 1024x2048, then 768x1536: 2x3 tiles
    [4096, 1024, 765], // 2048x512: 4x1 tiles
    [1920, 1080, 1105], // 1365x768: 3x2 tiles
    [8000, 100, 765], // 2048x26: 4x1 tiles
  ];
  for (const [width, height, tokens] of sizes) {
    it(`reads a ${width}x${height} PNG as ${tokens} tokens`, () => {
      expect(imageTokens(part(png(width, height)))).toBe(tokens);
      expect(imageTokens(part(png(width, height), "high"))).toBe(tokens);
      expect(imageTokens(part(png(width, height), "auto"))).toBe(tokens);
    });
  }

  it("reads GIF, JPEG and all three WebP headers", () => {
    expect(imageTokens(part(gif(512, 512)))).toBe(255);
    expect(imageTokens(part(jpeg(1920, 1080)))).toBe(1105);
    expect(imageTokens(part(jpeg(512, 512, 4000)))).toBe(255); // SOF after a 4 KB EXIF segment
    // Lossy: frame tag, start code 9d 01 2a, 14-bit little-endian width and height.
    const vp8 = riff("VP8 ", [0, 0, 0, 0x9d, 0x01, 0x2a, 0x00, 0x02, 0x00, 0x02]);
    expect(imageTokens(part(vp8))).toBe(255);
    // Lossless: signature 0x2f, then width-1 (14 bits) and height-1 (14 bits), LSB first.
    // 400x300: 399 = 0x18f, 299 = 0b1_0010_1011 → bytes 8f c1 4a 00.
    const vp8l = riff("VP8L", [0x2f, 0x8f, 0xc1, 0x4a, 0x00]);
    expect(imageTokens(part(vp8l))).toBe(255);
    // Extended: flags and reserved bytes, then 24-bit width-1 and height-1. 1024x1024.
    const vp8x = riff("VP8X", [0, 0, 0, 0, 0xff, 0x03, 0x00, 0xff, 0x03, 0x00]);
    expect(imageTokens(part(vp8x))).toBe(765);
  });

  it("falls back when a JPEG's size marker lies beyond the part of the URL it reads", () => {
    const late = jpeg(512, 512, 60_000);
    expect(late.length).toBeGreaterThan(IMAGE_HEADER_CHARS);
    expect(imageTokens(part(late))).toBe(765);
  });

  it("ignores everything after the header it reads", () => {
    const url = png(512, 512);
    expect(imageTokens(part(`${url}${"A".repeat(100_000)}`))).toBe(255);
  });
});
