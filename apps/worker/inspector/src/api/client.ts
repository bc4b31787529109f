/**
 * @module api/client
 * The inspector's calls to the public `/v1` API, on this origin, with the
 * signed-in key as a bearer token. Every failure becomes an `ApiFailure`
 * carrying the API's own `{ code, message, details }` (or a network or
 * response problem said as plainly), so views show the service's words.
 *
 * A thin `fetch` wrapper rather than `@condense/client`: the inspector also
 * calls routes that client has no methods for yet (list, search, memory),
 * needs an error's `details` (validation issues per field), and should show
 * a failure at once instead of retrying it.
 */

export class ApiFailure extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  readonly requestId: string | null;

  constructor(
    status: number,
    code: string,
    message: string,
    details: unknown = null,
    requestId: string | null = null,
  ) {
    super(message);
    this.name = "ApiFailure";
    this.status = status;
    this.code = code;
    this.details = details;
    this.requestId = requestId;
  }
}

/**
 * Whether `error` says the route itself is absent from this deployment. Only meaningful for
 * calls whose 404 has no other cause: the session list and memory (no id in the path), and
 * search on a session that was just read.
 */
export function isRouteMissing(error: unknown): boolean {
  return error instanceof ApiFailure && error.status === 404 && error.code === "not_found";
}

export type Query = Record<string, string | number | undefined>;

export interface Api {
  get<T>(path: string, query?: Query): Promise<T>;
  send<T>(method: "POST" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<T>;
}

/** `/v1/sessions/{id}` and below, with the id encoded as one path segment. */
export function sessionPath(sessionId: string, rest = ""): string {
  return `/v1/sessions/${encodeURIComponent(sessionId)}${rest}`;
}

function withQuery(path: string, query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== "") params.set(name, String(value));
  }
  const search = params.toString();
  return search === "" ? path : `${path}?${search}`;
}

function errorOf(status: number, body: unknown, requestId: string | null): ApiFailure {
  const error =
    typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
  if (typeof error === "object" && error !== null) {
    const { code, message, details } = error as {
      code?: unknown;
      message?: unknown;
      details?: unknown;
    };
    if (typeof code === "string" && typeof message === "string") {
      return new ApiFailure(status, code, message, details ?? null, requestId);
    }
  }
  return new ApiFailure(
    status,
    "bad_response",
    `the service answered HTTP ${status} without an error body`,
    null,
    requestId,
  );
}

/** An API client for `token` (an API key or a JWT) on this page's origin. */
export function createApi(token: string, fetchImpl: typeof fetch = fetch): Api {
  async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await fetchImpl(path, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        // The key is sent only to this origin, and never kept in an HTTP cache.
        credentials: "omit",
        cache: "no-store",
      });
    } catch (error) {
      throw new ApiFailure(
        0,
        "network_error",
        `could not reach the service (${error instanceof Error ? error.message : String(error)}); check that it is running`,
      );
    }
    const requestId = response.headers.get("X-Request-Id");
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      throw new ApiFailure(
        response.status,
        "bad_response",
        `the service answered HTTP ${response.status} with something other than JSON`,
        null,
        requestId,
      );
    }
    if (!response.ok) throw errorOf(response.status, parsed, requestId);
    return parsed as T;
  }
  return {
    get: (path, query) => request("GET", withQuery(path, query)),
    send: (method, path, body) => request(method, path, body),
  };
}
