/** A refusal of the API, in the server's own words (its JSON `message`). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The logged-in account, as GET /api/user gives it to its own session (with the CSRF token). */
export interface Account {
  login: string;
  email: string;
  avatar_url: string;
  admin: boolean;
  csrf?: string;
}

let csrf = '';

/** Remembers the session's CSRF token: every state-changing call sends it (X-CSRF-Token). */
export function useCsrf(token: string | undefined): void {
  csrf = token ?? '';
}

/**
 * Calls the same JSON API every client uses, with the session cookie. A 401 sends the browser to
 * the login page; any other refusal is an ApiError carrying the server's message.
 */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('svc cannot be reached: check your connection', 0);
  }
  const text = await response.text();
  const json: unknown = text === '' ? undefined : safeJson(text);
  if (!response.ok) {
    const message = (json as { message?: string } | undefined)?.message;
    throw new ApiError(
      message ?? `${method} ${path}: ${response.status} ${response.statusText}`,
      response.status,
    );
  }
  return json as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
