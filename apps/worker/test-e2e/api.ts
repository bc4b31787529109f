/**
 * @module test-e2e/api
 * The browser tests' own calls to the API (to create data and to read the
 * figures the page must show), as a given user's key.
 */

export interface Reply<T> {
  status: number;
  body: T;
}

export type Call = <T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
) => Promise<Reply<T>>;

export function apiAs(baseUrl: string, key: string): Call {
  return async <T>(method: string, path: string, body?: unknown): Promise<Reply<T>> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text === "" ? null : JSON.parse(text)) as T };
  };
}

/** The body of a 2xx reply, or an error naming the call and what the service said. */
export async function ok<T>(reply: Promise<Reply<T>>, what: string): Promise<T> {
  const { status, body } = await reply;
  if (status < 200 || status > 299)
    throw new Error(`${what}: HTTP ${status} ${JSON.stringify(body).slice(0, 400)}`);
  return body;
}
