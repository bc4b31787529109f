/**
 * @module bench/pass-through
 * The yardstick of the gateway's latency bench: a Worker that does nothing but
 * forward. `POST /v1/gateway/{upstream}/{path}` goes to `UPSTREAM_URL/{path}`
 * with the same method, headers and body, and the upstream's response comes
 * back as it is; the bench runs it under the same `wrangler dev` as the
 * gateway, so the difference between the two is the gateway's own time, the
 * runtime's carrying of a large body subtracted. Like the gateway (and any
 * Worker whose requests are observed), it logs one request line, an object,
 * after each response: under `wrangler dev` a logged object costs several
 * milliseconds of CPU in wrangler's own process, which a deployed Worker does
 * not pay, so the yardstick pays it too.
 */

interface PassThroughEnv {
  UPSTREAM_URL: string;
}

export default {
  async fetch(request: Request, env: PassThroughEnv): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return new Response("ok");
    const match = /^\/v1\/gateway\/[^/]+(\/.*)$/.exec(url.pathname);
    if (match === null) return new Response("not found", { status: 404 });
    const started = Date.now();
    // Read whole, as the gateway reads it before it forwards.
    const body = request.method === "GET" ? undefined : await request.text();
    const response = await fetch(`${env.UPSTREAM_URL}${match[1]}`, {
      method: request.method,
      headers: request.headers,
      body,
    });
    // The same shape as the gateway's request line (`log/log-lines`).
    console.log({
      time: new Date().toISOString(),
      level: "info",
      type: "request",
      requestId: crypto.randomUUID(),
      method: request.method,
      route: url.pathname,
      status: response.status,
      durationMs: Date.now() - started,
    });
    return response;
  },
};
