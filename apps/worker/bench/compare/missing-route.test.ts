import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { checkoutsWithout } from "./missing-route.ts";

const servers: Server[] = [];

/** A Worker stand-in: 200 on `known`, 404 elsewhere; it records the authorization it was sent. */
async function worker(known: string, seen: string[]): Promise<string> {
  const server = createServer((request, response) => {
    seen.push(request.headers.authorization ?? "");
    response.writeHead(request.url === known ? 200 : 404, { "content-type": "application/json" });
    response.end("{}");
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("checkoutsWithout", () => {
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
    );
  });

  it("names the checkout that answers the route 404, with the key sent", async () => {
    const seen: string[] = [];
    const path = "/v1/sessions/s/side-requests?limit=1";
    const served = [
      { base: await worker("/v1/sessions/s/compactions", seen), name: "base" },
      { base: await worker(path, seen), name: "change" },
    ];
    expect(await checkoutsWithout(served, path, "k1")).toEqual(["base"]);
    expect(seen).toEqual(["Bearer k1", "Bearer k1"]);
  });

  it("names none when both answer it", async () => {
    const path = "/v1/sessions/s/side-requests?limit=1";
    const served = [
      { base: await worker(path, []), name: "base" },
      { base: await worker(path, []), name: "change" },
    ];
    expect(await checkoutsWithout(served, path, "k1")).toEqual([]);
  });
});
