/**
 * @module scripts/http-examples
 * The example on each HTTP operation page: the request a Worker test really made and the answer it
 * got (`http-examples.json`, recorded by `apps/worker/test/api/http-examples.test.ts`, which fails when
 * the recording no longer matches what the Worker answers), shown as a curl line and the response.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface HttpExample {
  operation: string;
  request: { method: string; path: string; headers: Record<string, string>; body?: unknown };
  response: { status: number; headers: Record<string, string>; body: unknown };
}

export const HTTP_EXAMPLES = "http-examples.json";

export function loadHttpExamples(docsRoot: string): Map<string, HttpExample> {
  const list = JSON.parse(readFileSync(join(docsRoot, HTTP_EXAMPLES), "utf8")) as HttpExample[];
  return new Map(list.map((example) => [example.operation, example]));
}

/** A shell word in single quotes (a quote inside closes, escapes and reopens). */
function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The request as a curl line. Keys stay shell variables (`$CONDENSE_KEY`, `$OPENAI_API_KEY`), so the
 * headers are double-quoted; the body is single-quoted JSON.
 */
export function curlLine(example: HttpExample): string {
  const { method, path, headers, body } = example.request;
  const parts = [`curl -s${method === "GET" ? "" : ` -X ${method}`} "$CONDENSE_URL${path}"`];
  for (const [name, value] of Object.entries(headers)) parts.push(`-H "${name}: ${value}"`);
  if (body !== undefined) parts.push(`-d ${quoted(JSON.stringify(body))}`);
  return parts.join(" \\\n  ");
}

/** The "Example" section of an operation's page. */
export function exampleSection(example: HttpExample): string {
  const { status, headers, body } = example.response;
  const headerLines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  const shownBody = typeof body === "string" ? body : JSON.stringify(body, null, 2);
  const upstreamNote = /^\/v1\/gateway\/up\//.test(example.request.path)
    ? " `up` is the upstream name the tests configure in `GATEWAY_UPSTREAMS`; use `openai`, `anthropic` or a name of your own `GATEWAY_UPSTREAMS`."
    : "";
  return [
    "## Example",
    "",
    `A request the Worker's tests make (\`apps/worker/test/api/http-examples.test.ts\`) and the answer it got; long arrays and strings are cut (\`…\`), ids and times fixed. Set \`CONDENSE_URL\` (for example \`http://localhost:8787\` under \`pnpm start\`) and \`CONDENSE_KEY\` (your key from \`API_KEYS\`) first.${upstreamNote}`,
    "",
    "```sh",
    curlLine(example),
    "```",
    "",
    "```http",
    `HTTP/1.1 ${status}`,
    ...headerLines,
    "```",
    "",
    "```json",
    shownBody,
    "```",
    "",
  ].join("\n");
}
