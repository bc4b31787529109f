/**
 * The port `pnpm start` prints in its example call, from the arguments passed to `wrangler dev`,
 * and those arguments.
 */

import { describe, expect, it } from "vitest";
import { DEFAULT_DEV_PORT, devPort, wranglerDevArgs } from "../../scripts/dev-port";

describe("devPort", () => {
  it("is wrangler's default without --port", () => {
    expect(devPort([])).toBe(DEFAULT_DEV_PORT);
    expect(devPort(["--local", "--ip", "0.0.0.0"])).toBe(8787);
  });

  it("reads --port N and --port=N, the last one winning", () => {
    expect(devPort(["--port", "9000"])).toBe(9000);
    expect(devPort(["--ip", "0.0.0.0", "--port=8080"])).toBe(8080);
    expect(devPort(["--port", "9000", "--port=9100"])).toBe(9100);
  });

  it("ignores a --port without a number", () => {
    expect(devPort(["--port"])).toBe(8787);
    expect(devPort(["--port", "--local"])).toBe(8787);
    expect(devPort(["--inspector-port", "9229"])).toBe(8787);
  });
});

describe("wranglerDevArgs", () => {
  it("drops the -- that `pnpm start -- --port N` passes on (wrangler took what followed as positional, served on 8787 and the printed lines named N)", () => {
    expect(wranglerDevArgs(["--", "--port", "9000"])).toEqual(["--port", "9000"]);
    expect(devPort(wranglerDevArgs(["--", "--port", "9000"]))).toBe(9000);
  });

  it("passes every other argument on as given", () => {
    expect(wranglerDevArgs([])).toEqual([]);
    expect(wranglerDevArgs(["--port", "9000", "--ip", "0.0.0.0"])).toEqual([
      "--port",
      "9000",
      "--ip",
      "0.0.0.0",
    ]);
  });
});
