import { describe, expect, it } from "vitest";
import { readJsonBody } from "./body";

const post = (
  body: BodyInit | null,
  headers: Record<string, string> = { "Content-Type": "application/json" },
) => new Request("https://x.test/", { method: "POST", body, headers });

describe("readJsonBody", () => {
  it("parses JSON and keeps the text for hashing", async () => {
    expect(await readJsonBody(post('{"a":[1,2]}'))).toEqual({
      value: { a: [1, 2] },
      text: '{"a":[1,2]}',
    });
    expect(
      await readJsonBody(post("{}", { "Content-Type": "application/vnd.api+json; charset=utf-8" })),
    ).toMatchObject({ value: {} });
  });

  it("reads an empty body as {} only where allowed", async () => {
    expect(await readJsonBody(post(null, {}), { allowEmpty: true })).toEqual({
      value: {},
      text: "",
    });
    await expect(readJsonBody(post(null, {}))).rejects.toMatchObject({
      code: "unsupported_media_type",
    });
  });

  it("names the problem: media type, UTF-8, JSON, size", async () => {
    await expect(readJsonBody(post("{}", { "Content-Type": "text/plain" }))).rejects.toMatchObject({
      status: 415,
    });
    await expect(readJsonBody(post(new Uint8Array([0x7b, 0xff, 0x7d])))).rejects.toMatchObject({
      code: "invalid_json",
    });
    await expect(readJsonBody(post("{oops"))).rejects.toMatchObject({
      code: "invalid_json",
      status: 400,
    });
    await expect(readJsonBody(post("x".repeat(101)), { limit: 100 })).rejects.toMatchObject({
      code: "body_too_large",
      status: 413,
    });
    expect((await readJsonBody(post(`"${"x".repeat(98)}"`), { limit: 100 })).value).toHaveLength(
      98,
    );
  });
});
