// The few HTTP calls the CLI makes, with the key as the Basic username (empty password).
export interface Connection { baseUrl: string; apiKey: string }

export const basicAuth = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;

export class ApiError extends Error {
  constructor(readonly status: number, readonly body: string, what: string) {
    super(`${what}: ${status} ${body}`);
  }
}

/** A JSON call; a FormData body goes as multipart/form-data (fetch sets its boundary). */
export async function call<T>(c: Connection, method: string, path: string, body?: unknown): Promise<T> {
  const json = body !== undefined && !(body instanceof FormData);
  const res = await fetch(new URL(path, c.baseUrl), {
    method,
    headers: { authorization: basicAuth(c.apiKey), ...(json ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : json ? JSON.stringify(body) : (body as FormData),
  });
  const text = await res.text();
  if (!res.ok) throw new ApiError(res.status, text, `${method} ${path}`);
  return JSON.parse(text) as T;
}
