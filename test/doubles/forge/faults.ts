/**
 * Fault injection for the forge doubles: requests matching a rule get an error answer (5xx, 429
 * with Retry-After) or a connection closed without any answer, instead of the double's normal one —
 * a provider down, overloaded or rate-limited, as svc meets them. Rules apply in the order added; a
 * rule with `times` is used up after that many requests.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';

export interface FaultRule {
  /** Only requests with this method (any when absent). */
  method?: string;
  /** Only requests whose path (without query) contains this string or matches this expression. */
  path?: string | RegExp;
  /** The HTTP status to answer, or `close`: the connection is destroyed before any answer. */
  answer: number | 'close';
  /** `Retry-After` in seconds. */
  retryAfter?: number;
  /** More headers of the answer (a provider's rate-limit headers). */
  headers?: Record<string, string>;
  /** The body; by default `{"message": <the status's reason phrase>}`. */
  body?: string;
  /** How many requests the rule applies to; until `recover` when absent. */
  times?: number;
}

/** A request that got a fault instead of its answer. */
export interface FaultHit {
  method: string;
  path: string;
  answer: number | 'close';
  at: number;
}

export class Faults {
  #rules: { rule: FaultRule; left: number }[] = [];
  readonly hits: FaultHit[] = [];

  /** Adds a rule. */
  fail(rule: FaultRule): void {
    this.#rules.push({ rule, left: rule.times ?? Number.POSITIVE_INFINITY });
  }

  /** Removes every rule: the double answers normally again. */
  recover(): void {
    this.#rules = [];
  }

  /**
   * Answers the request with a fault when a rule matches (true), else leaves it to the double
   * (false). Call it once the request's body was read.
   */
  intercept(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://double').pathname;
    const found = this.#rules.find(({ rule, left }) => left > 0 && matches(rule, method, path));
    if (found === undefined) return false;
    found.left -= 1;
    const { rule } = found;
    this.hits.push({ method, path, answer: rule.answer, at: Date.now() });
    if (rule.answer === 'close') {
      req.socket.destroy();
      return true;
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      ...rule.headers,
    };
    if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
    res.writeHead(rule.answer, headers);
    res.end(rule.body ?? JSON.stringify({ message: STATUS_CODES[rule.answer] ?? 'Error' }));
    return true;
  }
}

function matches(rule: FaultRule, method: string, path: string): boolean {
  if (rule.method !== undefined && rule.method !== method) return false;
  if (rule.path === undefined) return true;
  return typeof rule.path === 'string' ? path.includes(rule.path) : rule.path.test(path);
}
