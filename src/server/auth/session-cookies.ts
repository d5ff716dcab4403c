import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { fastifyCookie } from '@fastify/cookie';
import type { User } from '../../core/user.js';
import { parseCookies, serializeCookie } from './cookie-text.js';

/** How session cookies are made: SVC_COOKIE_SECRET, SVC_COOKIE_TIMEOUT, and SVC_SERVER_PROTO. */
export interface SessionOptions {
  /** SVC_COOKIE_SECRET; null makes a random one for this process, which logs everyone out on restart. */
  readonly secret: string | null;
  /** SVC_COOKIE_TIMEOUT: how long a session lasts after login, in milliseconds. */
  readonly timeoutMs: number;
  /** True when users reach the server over https (SVC_SERVER_PROTO): cookies are then `Secure`. */
  readonly secure: boolean;
  readonly now?: () => number;
}

/** A valid session cookie, read back. */
export interface Session {
  readonly userId: number;
  /** Epoch milliseconds. */
  readonly expires: number;
  /** Ties the session to the user's current API token: rotating the token ends every session. */
  readonly tokenTag: string;
  /** The account's session generation it was issued in (User.sessionGen); 0 for older cookies. */
  readonly generation: number;
  /** The CSRF token of this session (X-CSRF-Token). */
  readonly csrf: string;
}

/** Cookie names. `svc_csrf` is readable by scripts on purpose: a web UI copies it into X-CSRF-Token. */
export const SESSION_COOKIE = 'svc_session';
export const CSRF_COOKIE = 'svc_csrf';
export const LOGIN_STATE_COOKIE = 'svc_login_state';

/** The OAuth round trip must finish within this time. */
const LOGIN_STATE_MS = 10 * 60_000;

/**
 * Signed, stateless cookies: the session (`<user id>:<expiry>:<token tag>`, HMAC-signed, HttpOnly,
 * SameSite=Lax, Secure under https) and the OAuth `state` of a login in progress. The CSRF token is
 * an HMAC of the session value, so it needs no storage and changes with every login.
 */
export class SessionCookies {
  readonly #signer: ReturnType<typeof fastifyCookie.signerFactory>;
  readonly #csrfKey: Buffer;
  readonly #options: SessionOptions;
  readonly #now: () => number;

  constructor(options: SessionOptions) {
    const secret = options.secret ?? randomBytes(32).toString('hex');
    this.#signer = fastifyCookie.signerFactory(secret);
    this.#csrfKey = createHmac('sha256', secret).update('svc csrf').digest();
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Set-Cookie values that log `user` in. */
  login(user: Pick<User, 'id' | 'tokenHash' | 'sessionGen'>): string[] {
    const expires = this.#now() + this.#options.timeoutMs;
    const value = `${user.id}:${expires}:${tokenTag(user.tokenHash)}:${user.sessionGen}`;
    const at = new Date(expires);
    return [
      this.#cookie(SESSION_COOKIE, this.#signer.sign(value), { expires: at, httpOnly: true }),
      this.#cookie(CSRF_COOKIE, this.#csrf(value), { expires: at, httpOnly: false }),
    ];
  }

  /** Set-Cookie values that end the session. */
  logout(): string[] {
    const past = new Date(0);
    return [
      this.#cookie(SESSION_COOKIE, '', { expires: past, httpOnly: true }),
      this.#cookie(CSRF_COOKIE, '', { expires: past, httpOnly: false }),
    ];
  }

  /** The session of a Cookie header; undefined when there is none, or it is forged or expired. */
  read(cookieHeader: string | undefined): Session | undefined {
    const raw = parseCookies(cookieHeader).get(SESSION_COOKIE);
    if (raw === undefined || raw === '') return undefined;
    const unsigned = this.#signer.unsign(raw);
    if (!unsigned.valid) return undefined;
    // Cookies issued before session generations have three parts: generation 0.
    const match = /^(\d+):(\d+):([0-9a-f]+)(?::(\d{1,15}))?$/.exec(unsigned.value);
    if (match === null) return undefined;
    const expires = Number(match[2]);
    if (expires <= this.#now()) return undefined;
    return {
      userId: Number(match[1]),
      expires,
      tokenTag: match[3] ?? '',
      generation: Number(match[4] ?? 0),
      csrf: this.#csrf(unsigned.value),
    };
  }

  /**
   * True when the session was issued for the user's current API token, in the account's current
   * session generation (a logout since ends it).
   */
  belongsTo(session: Session, user: Pick<User, 'id' | 'tokenHash' | 'sessionGen'>): boolean {
    return (
      session.userId === user.id &&
      session.generation === user.sessionGen &&
      sameText(session.tokenTag, tokenTag(user.tokenHash))
    );
  }

  /** A fresh OAuth `state` and the short-lived cookie that remembers it. */
  startLogin(): { state: string; cookie: string } {
    const state = randomBytes(24).toString('base64url');
    const value = this.#signer.sign(`${state}:${this.#now() + LOGIN_STATE_MS}`);
    return {
      state,
      cookie: this.#cookie(LOGIN_STATE_COOKIE, value, {
        maxAge: LOGIN_STATE_MS / 1000,
        httpOnly: true,
        path: '/login',
      }),
    };
  }

  /** The `state` of the login in progress; undefined when missing, forged or expired. */
  loginState(cookieHeader: string | undefined): string | undefined {
    const raw = parseCookies(cookieHeader).get(LOGIN_STATE_COOKIE);
    if (raw === undefined || raw === '') return undefined;
    const unsigned = this.#signer.unsign(raw);
    if (!unsigned.valid) return undefined;
    const match = /^([A-Za-z0-9_-]+):(\d+)$/.exec(unsigned.value);
    if (match === null || Number(match[2]) <= this.#now()) return undefined;
    return match[1];
  }

  /** Set-Cookie value that forgets the login state (it is single-use). */
  endLogin(): string {
    return this.#cookie(LOGIN_STATE_COOKIE, '', { expires: new Date(0), httpOnly: true, path: '/login' });
  }

  #csrf(sessionValue: string): string {
    return createHmac('sha256', this.#csrfKey).update(sessionValue).digest('base64url');
  }

  #cookie(
    name: string,
    value: string,
    options: { expires?: Date; maxAge?: number; httpOnly: boolean; path?: string },
  ): string {
    return serializeCookie(name, value, {
      path: '/',
      sameSite: 'Lax',
      secure: this.#options.secure,
      ...options,
    });
  }
}

/**
 * Constant-time comparison of two texts of any length: both are hashed first, so that neither the
 * content nor the length of the expected text leaks through response times.
 */
export function sameText(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/**
 * 64 bits of the token's SHA-256: the tag sessions carried when svc still stored tokens as they
 * are, so that sessions outlive the upgrade that started storing hashes.
 */
function tokenTag(tokenHash: string): string {
  return tokenHash.slice(0, 16);
}
