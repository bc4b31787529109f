import { describe, expect, it } from "vitest";
import { chromiumPath } from "./chromium.ts";

describe("chromiumPath", () => {
  it("uses CHROMIUM_PATH, then Debian's chromium", () => {
    expect(chromiumPath({ CHROMIUM_PATH: "/opt/chrome" }, (p) => p === "/opt/chrome")).toBe(
      "/opt/chrome",
    );
    expect(chromiumPath({}, (p) => p === "/usr/bin/chromium")).toBe("/usr/bin/chromium");
  });

  it("fails saying how to get Chromium when there is none", () => {
    expect(() => chromiumPath({}, () => false)).toThrow(
      /apt-get install -y chromium.*CHROMIUM_PATH/,
    );
    expect(() => chromiumPath({ CHROMIUM_PATH: "/nope" }, () => false)).toThrow(
      /CHROMIUM_PATH is \/nope, which does not exist/,
    );
  });
});
