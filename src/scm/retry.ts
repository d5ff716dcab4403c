import type { TransportResponse } from './transport.js';

/**
 * How svc retries a call its git provider failed on its side (5xx), refused for its rate limit
 * (429, GitHub's 403 with no requests remaining), or did not answer (connection refused or reset,
 * DNS, timeout). Bounded on purpose: the calls made while a webhook is handled must end well before
 * the provider gives up on the delivery (GitHub waits 10 s), and a provider that stays down is
 * reported (an error build, a status kept for later) rather than waited out.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  /** The wait before the first retry; each further one waits twice as long, with jitter. */
  readonly baseDelayMs: number;
  /**
   * The longest single wait, also the longest Retry-After or rate-limit reset svc waits for: a
   * provider asking for a longer pause gets no retry, its refusal goes back to the caller.
   */
  readonly maxDelayMs: number;
  /** No retry starts once this much time has passed since the first attempt began. */
  readonly budgetMs: number;
}

/**
 * Three attempts, 0.5 s then 1 s apart (±25 %); a Retry-After or rate-limit reset of up to 5 s is
 * waited for instead; no retry starts 8 s after the first attempt. A provider down costs a webhook
 * about 1.5 s before it is reported; longer outages are the outbox's (statuses) or a restart's
 * (error builds).
 */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 5000, budgetMs: 8000 };

/**
 * What a call may be retried after. `idempotent`: doing it twice is the same as once (reads, a
 * commit status — the provider shows the newest per context; a token request, whose grant cannot be
 * used twice anyway), so every failure of the provider's is retried. `unprocessed`: a second effect
 * would be a duplicate (a webhook created twice), so only failures that prove the provider did not
 * act are retried: connection refused, and a rate-limit refusal.
 */
export type CallSafety = 'idempotent' | 'unprocessed';

/** The safety of a call by its HTTP method: GET and HEAD are reads; anything else must be said. */
export function safetyOf(method: string): CallSafety {
  return method === 'GET' || method === 'HEAD' ? 'idempotent' : 'unprocessed';
}

/** Statuses with which a provider says it failed on its side and may succeed later. */
const TRANSIENT = new Set([500, 502, 503, 504]);

/** What the retry loop needs besides the policy: the clock and randomness are fixed in tests. */
export interface RetryContext {
  readonly policy: RetryPolicy;
  readonly safety: CallSafety;
  /**
   * How long the provider asks svc to wait before calling again, in ms (Retry-After, a rate-limit
   * reset); undefined when it asks nothing. A rate-limited answer must return a number.
   */
  readonly waitAsked?: (response: TransportResponse) => number | undefined;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

/** The result of a call made with retries: the last answer (any status) and how many attempts it took. */
export interface Retried {
  readonly response: TransportResponse;
  readonly attempts: number;
}

/**
 * Sends with `send` until an answer comes that is not worth retrying, the policy's attempts are
 * used, or its budget is spent; answers with the last response (the caller turns a refusal into an
 * error as for a single call). When no answer ever came, the last transport error is thrown, with
 * `attempts` set on it.
 */
export async function sendWithRetries(
  context: RetryContext,
  send: () => Promise<TransportResponse>,
): Promise<Retried> {
  const now = context.now ?? Date.now;
  const sleep = context.sleep ?? defaultSleep;
  const random = context.random ?? Math.random;
  const { policy } = context;
  const started = now();
  for (let attempt = 1; ; attempt++) {
    let wait: number | undefined;
    try {
      const response = await send();
      wait = retryWait(context, attempt, response, random);
      if (wait === undefined || !withinBudget(policy, attempt, started, now(), wait))
        return { response, attempts: attempt };
    } catch (error) {
      wait = context.safety === 'idempotent' || refused(error) ? backoff(policy, attempt, random) : undefined;
      if (wait === undefined || !withinBudget(policy, attempt, started, now(), wait)) {
        if (error instanceof Error) Object.assign(error, { attempts: attempt });
        throw error;
      }
    }
    await sleep(wait);
  }
}

/** The wait before retrying after `response`; undefined when it must not be retried. */
function retryWait(
  context: RetryContext,
  attempt: number,
  response: TransportResponse,
  random: () => number,
): number | undefined {
  if (response.status >= 200 && response.status < 400) return undefined;
  const asked = context.waitAsked?.(response) ?? retryAfterMs(response);
  const limited = response.status === 429 || (response.status === 403 && asked !== undefined);
  if (!limited && !(context.safety === 'idempotent' && TRANSIENT.has(response.status))) return undefined;
  if (asked === undefined) return backoff(context.policy, attempt, random);
  // A pause longer than svc waits: the refusal, with its reset time, is the caller's to report.
  return asked > context.policy.maxDelayMs ? undefined : Math.max(0, asked);
}

function withinBudget(policy: RetryPolicy, attempt: number, started: number, now: number, wait: number) {
  return attempt < policy.attempts && now + wait - started <= policy.budgetMs;
}

/** Exponential backoff with ±25 % jitter, so that many servers retrying do not call in step. */
export function backoff(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const exact = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exact * (0.75 + random() * 0.5));
}

/** `Retry-After` in ms: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(response: TransportResponse, now = Date.now()): number | undefined {
  const value = response.header('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The connection was refused: nothing reached the provider, so even a call that must not run twice
 * may be made again. Fetch hides the code in its error's cause; node:http puts it on the error.
 */
export function refused(error: unknown): boolean {
  const codeOf = (value: unknown): unknown =>
    typeof value === 'object' && value !== null ? (value as { code?: unknown }).code : undefined;
  const cause = error instanceof Error ? error.cause : undefined;
  return codeOf(error) === 'ECONNREFUSED' || codeOf(cause) === 'ECONNREFUSED';
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
