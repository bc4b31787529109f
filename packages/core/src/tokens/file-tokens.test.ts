import { describe, expect, it } from "vitest";
import type { AudioPart, FilePart } from "../messages/types.js";
import { countTokens } from "./count.js";
import {
  AUDIO_TOKENS_PER_SECOND,
  audioTokens,
  BYTES_PER_UNKNOWN_PAGE,
  fileTokens,
  PDF_PAGE_TOKENS,
} from "./file-tokens.js";

const text = (value: string): number => countTokens(value, "gpt-4o");

function binary(bytes: readonly number[]): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 4096)
    out += String.fromCharCode(...bytes.slice(i, i + 4096));
  return out;
}

function file(data: string, filename?: string): FilePart {
  return {
    type: "file",
    file: filename === undefined ? { file_data: data } : { file_data: data, filename },
  };
}

function pdf(body: string): string {
  return `data:application/pdf;base64,${btoa(`%PDF-1.7\n${body}\n%%EOF`)}`;
}

function pageObjects(count: number): string {
  const pages = Array.from(
    { length: count },
    (_, i) => `${i + 3} 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj`,
  );
  return `1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Count ${count} >>\nendobj\n${pages.join("\n")}`;
}

describe("fileTokens: PDFs by pages", () => {
  it("counts the page objects of a PDF, not its page tree", () => {
    expect(fileTokens(file(pdf(pageObjects(3))), text)).toBe(3 * PDF_PAGE_TOKENS);
    // `/Type/Page` without spaces is the same name.
    expect(fileTokens(file(pdf("<</Type/Page>> <</Type/Page>>")), text)).toBe(2 * PDF_PAGE_TOKENS);
  });

  it("reads a linearized PDF's page count from its first dictionary", () => {
    const body = `1 0 obj\n<< /Linearized 1 /L 90210 /N 12 /T 9000 >>\nendobj\n${pageObjects(1)}`;
    expect(fileTokens(file(pdf(body)), text)).toBe(12 * PDF_PAGE_TOKENS);
  });

  it("uses the page tree's /Count when the pages are in compressed object streams", () => {
    expect(fileTokens(file(pdf("<< /Type /Pages /Count 5 /Kids [4 0 R] >>")), text)).toBe(
      5 * PDF_PAGE_TOKENS,
    );
  });

  it("estimates a page per 64 KiB when the structure says nothing, and adds the filename", () => {
    const bytes = Array.from({ length: 3 * BYTES_PER_UNKNOWN_PAGE + 10 }, (_, i) => (i * 7) % 251);
    const data = `data:application/pdf;base64,${btoa(binary(bytes))}`;
    expect(fileTokens(file(data), text)).toBe(4 * PDF_PAGE_TOKENS);
    expect(fileTokens(file(data, "report.pdf"), text)).toBe(
      4 * PDF_PAGE_TOKENS + text("report.pdf"),
    );
  });

  it("reads bare base64 as a PDF, and counts an unreadable one by its size", () => {
    expect(fileTokens(file(btoa(`%PDF-1.4\n${pageObjects(2)}`)), text)).toBe(2 * PDF_PAGE_TOKENS);
    expect(fileTokens(file("data:application/pdf;base64,***"), text)).toBe(PDF_PAGE_TOKENS);
  });

  it("counts a file known only by its id as one page", () => {
    expect(fileTokens({ type: "file", file: { file_id: "file-abc" } }, text)).toBe(PDF_PAGE_TOKENS);
  });
});

describe("fileTokens: other files", () => {
  it("counts a text file's text exactly (UTF-8, base64 or percent-encoded)", () => {
    const body = "def main():\n    print('héllo, wörld')\n";
    const bytes = new TextEncoder().encode(body);
    const base64 = `data:text/plain;charset=utf-8;base64,${btoa(binary([...bytes]))}`;
    expect(fileTokens(file(base64), text)).toBe(text(body));
    expect(fileTokens(file(`data:text/markdown,${encodeURIComponent(body)}`), text)).toBe(
      text(body),
    );
    expect(fileTokens(file(`data:application/json;base64,${btoa('{"a":1}')}`), text)).toBe(
      text('{"a":1}'),
    );
  });

  it("counts other documents as pages by their size", () => {
    const bytes = Array.from({ length: BYTES_PER_UNKNOWN_PAGE + 1 }, () => 0);
    const docx = `data:application/vnd.openxmlformats-officedocument.wordprocessingml.document;base64,${btoa(binary(bytes))}`;
    expect(fileTokens(file(docx), text)).toBe(2 * PDF_PAGE_TOKENS);
  });
});

function le32(n: number): number[] {
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
}

function wav(byteRate: number, dataBytes: number): AudioPart {
  const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));
  const header = [
    ...ascii("RIFF"),
    ...le32(36 + dataBytes),
    ...ascii("WAVE"),
    ...ascii("fmt "),
    ...le32(16),
    1,
    0,
    1,
    0,
    ...le32(byteRate / 2),
    ...le32(byteRate),
    2,
    0,
    16,
    0,
    ...ascii("data"),
    ...le32(dataBytes),
  ];
  const bytes = [...header, ...Array.from({ length: dataBytes }, () => 0)];
  return { type: "input_audio", input_audio: { data: btoa(binary(bytes)), format: "wav" } };
}

function mp3(totalBytes: number, id3 = 0): AudioPart {
  // ID3v2 header: "ID3", version, flags, then the tag size as four 7-bit bytes.
  const tag =
    id3 === 0
      ? []
      : [0x49, 0x44, 0x33, 4, 0, 0, 0, 0, (id3 >> 7) & 0x7f, id3 & 0x7f, ...Array(id3).fill(0)];
  // MPEG-1 Layer III, 128 kbit/s, 44.1 kHz.
  const frame = [0xff, 0xfb, 0x90, 0x00];
  const bytes = [...tag, ...frame, ...Array(totalBytes - frame.length).fill(0)];
  return { type: "input_audio", input_audio: { data: btoa(binary(bytes)), format: "mp3" } };
}

describe("audioTokens", () => {
  it("counts a WAV file by the duration its header gives", () => {
    expect(audioTokens(wav(32_000, 64_000))).toBe(2 * AUDIO_TOKENS_PER_SECOND);
    expect(audioTokens(wav(16_000, 24_000))).toBe(Math.ceil(1.5 * AUDIO_TOKENS_PER_SECOND));
  });

  it("counts an MP3 by its first frame's bit rate, after any ID3 tag", () => {
    expect(audioTokens(mp3(32_000))).toBe(2 * AUDIO_TOKENS_PER_SECOND);
    expect(audioTokens(mp3(48_000, 300))).toBe(3 * AUDIO_TOKENS_PER_SECOND);
  });

  it("assumes 128 kbit/s for audio whose header it cannot read", () => {
    const data = btoa(binary(Array(48_000).fill(1)));
    expect(audioTokens({ type: "input_audio", input_audio: { data, format: "wav" } })).toBe(
      3 * AUDIO_TOKENS_PER_SECOND,
    );
  });
});
