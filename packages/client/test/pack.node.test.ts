/**
 * @module test/pack.node.test
 * The packages as their users get them. Packs `@condense/core` and
 * `@condense/client` with `pnpm pack` (which turns `workspace:` versions into
 * real ones), then for each tarball: publint (strict) and
 * `@arethetypeswrong/cli` (ESM-only profile) pass, every `exports` target is
 * in it, and its code imports nothing but its own files and its declared
 * dependencies and peers (no `node:` module: the packages run in Workers and
 * browsers too). Then it installs both tarballs into a fresh project under the
 * OS temp directory, with the registry's `openai`, `@anthropic-ai/sdk` and `ai`
 * at the versions the workspace tests, type checks a user's script there
 * (test/pack-consumer/consumer.ts) and runs it with Node against the Worker
 * under `wrangler dev`, with the local model server (test/scenario-server.ts).
 *
 * Run by `pnpm test` (turbo task `test:pack`); it reaches the npm registry.
 */

import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { TestServer } from "@condense/test-servers";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Service, startWrangler } from "../demo/service.js";
import { startScenarioServer } from "./scenario-server.js";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const clientDir = resolve(here, "..");
const repoRoot = resolve(clientDir, "../..");
const PACKAGES = {
  "@condense/core": join(repoRoot, "packages/core"),
  "@condense/client": clientDir,
};

interface Manifest {
  name: string;
  exports?: unknown;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

interface Packed {
  name: string;
  tarball: string;
  manifest: Manifest;
  files: Map<string, string>;
}

/** Runs a command; a failure carries what it printed. */
async function sh(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<string> {
  try {
    const { stdout } = await run(command, args, {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, ...env },
    });
    return stdout;
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed:\n${stdout}\n${stderr}`.slice(0, 8000));
  }
}

/** The files of a tarball, by path inside the package (`package/` stripped). */
async function unpack(tarball: string, into: string): Promise<Map<string, string>> {
  await sh("tar", ["xzf", tarball, "-C", into], into);
  const list = await sh("tar", ["tzf", tarball], into);
  const files = new Map<string, string>();
  for (const path of list.split("\n").filter((line) => line !== "")) {
    const inner = path.replace(/^package\//, "");
    if (inner.endsWith(".js") || inner.endsWith(".json") || inner.endsWith(".d.ts"))
      files.set(inner, readFileSync(join(into, path), "utf8"));
    else files.set(inner, "");
  }
  return files;
}

/** Every file path an `exports` map points at. */
function exportTargets(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (value === null || typeof value !== "object") return [];
  return Object.values(value).flatMap(exportTargets);
}

/** The module specifiers a built JavaScript file imports (static, re-exports and dynamic). */
function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const pattern =
    /(?:^|[\s;])(?:import|export)\s[^"'`;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^import\s*["']([^"']+)["']/gm;
  for (const match of source.matchAll(pattern)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    if (specifier !== undefined) specifiers.push(specifier);
  }
  return specifiers;
}

function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

const work = mkdtempSync(join(tmpdir(), "condense-pack-"));
const packed: Packed[] = [];

beforeAll(async () => {
  for (const [name, dir] of Object.entries(PACKAGES)) {
    const out = mkdtempSync(join(work, "tarball-"));
    await sh("pnpm", ["pack", "--pack-destination", out], dir);
    const tarball = (await sh("ls", [out], out)).trim().split("\n")[0] ?? "";
    const unpacked = mkdtempSync(join(work, "unpacked-"));
    const files = await unpack(join(out, tarball), unpacked);
    const manifest = JSON.parse(files.get("package.json") ?? "{}") as Manifest;
    packed.push({ name, tarball: join(out, tarball), manifest, files });
  }
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe.each(Object.keys(PACKAGES))("the %s tarball", (name) => {
  const get = (): Packed => {
    const found = packed.find((entry) => entry.name === name);
    if (found === undefined) throw new Error(`${name} was not packed`);
    return found;
  };

  it("passes publint (strict) and arethetypeswrong (ESM-only profile)", async () => {
    const { tarball } = get();
    const bytes = readFileSync(tarball);
    const result = await publint({
      pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
      strict: true,
      level: "suggestion",
    });
    expect(result.messages.map((message) => formatMessage(message, result.pkg))).toEqual([]);
    const attw = join(clientDir, "node_modules/.bin/attw");
    const report = await run(attw, [tarball, "--profile", "esm-only", "--format", "json"], {
      cwd: work,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "", failed: true }));
    expect("failed" in report ? report.stdout : "").toBe("");
  });

  it("declares real versions, ships every exports target, and imports only what it declares", () => {
    const { manifest, files } = get();
    for (const field of ["dependencies", "peerDependencies", "optionalDependencies"] as const) {
      for (const [dependency, version] of Object.entries(manifest[field] ?? {}))
        expect(`${dependency}@${version}`).not.toMatch(/@(workspace|link|file):/);
    }
    const targets = exportTargets(manifest.exports);
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect([...files.keys()]).toContain(target.replace(/^\.\//, ""));

    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    const undeclared: string[] = [];
    for (const [path, source] of files) {
      if (!path.endsWith(".js")) continue;
      for (const specifier of importsOf(source)) {
        if (specifier.startsWith(".")) continue;
        if (!declared.has(packageOf(specifier))) undeclared.push(`${path}: ${specifier}`);
      }
    }
    expect(undeclared).toEqual([]);
  });
});

describe("the packages installed in a fresh project", () => {
  let service: Service | undefined;
  let models: TestServer | undefined;

  afterAll(async () => {
    await service?.stop();
    await models?.close();
  });

  it("type check and run a script using every integration against the Worker under wrangler dev", async () => {
    const client = JSON.parse(readFileSync(join(clientDir, "package.json"), "utf8")) as Manifest;
    const version = (dependency: string) => {
      const pinned = client.devDependencies?.[dependency];
      if (pinned === undefined)
        throw new Error(`the client's devDependencies do not pin ${dependency}`);
      return pinned;
    };
    const project = mkdtempSync(join(work, "consumer-"));
    const tarballOf = (name: string) => packed.find((entry) => entry.name === name)?.tarball ?? "";
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "condense-pack-consumer",
        private: true,
        type: "module",
        dependencies: {
          "@condense/client": `file:${tarballOf("@condense/client")}`,
          "@condense/core": `file:${tarballOf("@condense/core")}`,
          ...Object.fromEntries(
            [
              "openai",
              "@anthropic-ai/sdk",
              "ai",
              "@ai-sdk/provider",
              "zod",
              "typescript",
              "@types/node",
            ].map((dependency) => [dependency, version(dependency)]),
          ),
        },
      }),
    );
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          lib: ["ES2023", "DOM"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"],
        },
        include: ["consumer.ts"],
      }),
    );
    copyFileSync(join(here, "pack-consumer/consumer.ts"), join(project, "consumer.ts"));
    await sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], project);
    await sh(join(project, "node_modules/.bin/tsc"), ["-p", "tsconfig.json"], project);

    models = await startScenarioServer();
    const openaiModel = `pack-${crypto.randomUUID()}`;
    const anthropicModel = `pack-${crypto.randomUUID()}`;
    for (const model of [openaiModel, anthropicModel]) {
      await fetch(`${models.origin}/scenarios`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: model, limit: 1_000_000, answerChars: 40 }),
      });
    }
    service = await startWrangler(join(repoRoot, "apps/worker"), await freePort(), () => {});
    const config = {
      baseUrl: service.baseUrl,
      apiKey: service.apiKey,
      openaiUrl: models.origin,
      openaiModel,
      anthropicUrl: models.origin,
      anthropicModel,
    };
    const stdout = await sh(process.execPath, ["consumer.ts"], project, {
      CONDENSE_PACK_CONFIG: JSON.stringify(config),
    });
    const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    expect(result).toMatchObject({
      openai: {
        reply: expect.stringMatching(/^Answer 1/),
        streamed: expect.stringMatching(/^Answer 2/),
        roles: ["system", "user", "assistant", "user", "assistant"],
      },
      anthropic: {
        reply: expect.stringMatching(/^Answer 1/),
        streamed: expect.stringMatching(/^Answer 2/),
        roles: ["system", "user", "assistant", "user", "assistant"],
      },
      aiSdk: { text: "generated", roles: ["system", "user", "assistant"] },
      core: { compacted: false, tokens: 2 },
      notFound: "not_found",
    });
  });
});
