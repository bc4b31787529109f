/**
 * @module bench/pass-through
 * The yardstick of the gateway's latency bench: a Worker that does nothing but
 * forward. `POST /v1/gateway/{upstream}/{path}` goes to `UPSTREAM_URL/{path}`
 * with the same method, headers and body, and the upstream's response comes
 * back as it is; the bench runs it under the same `wrangler dev` as the
 * gateway, so the difference between the two is the gateway's own time, the
 * runtime's carrying of a large body subtracted.
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
    // Read whole, as the gateway reads it before it forwards.
    const body = request.method === "GET" ? undefined : await request.text();
    return fetch(`${env.UPSTREAM_URL}${match[1]}`, {
      method: request.method,
      headers: request.headers,
      body,
    });
  },
};
