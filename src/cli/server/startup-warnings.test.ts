import { describe, expect, it } from 'vitest';
import { startupWarnings } from './startup-warnings.js';

const safe = {
  SVC_RPC_SECRET: 'f'.repeat(32),
  SVC_REGISTRATION_CLOSED: true,
  SVC_USER_FILTER: null,
  SVC_COOKIE_SECRET: 'c'.repeat(64),
};

describe('the warnings of svc server at start', () => {
  it('says nothing when the production settings are set', () => {
    expect(startupWarnings(safe, { login: true, shared: true })).toEqual([]);
    expect(
      startupWarnings(
        { ...safe, SVC_REGISTRATION_CLOSED: null, SVC_USER_FILTER: ['acme'] },
        { login: true, shared: false },
      ),
    ).toEqual([]);
  });

  it('names open registration and how to close it, when a git provider lets anyone log in', () => {
    const open = { ...safe, SVC_REGISTRATION_CLOSED: null };
    const [warning] = startupWarnings(open, { login: true, shared: false });
    expect(warning).toMatch(/^registration is open: anyone with an account at the git provider/);
    expect(warning).toContain('SVC_USER_FILTER');
    expect(warning).toContain('SVC_REGISTRATION_CLOSED=true');
    // Without a provider nobody logs in through it.
    expect(startupWarnings(open, { login: false, shared: false })).toEqual([]);
  });

  it('says a missing cookie secret logs everyone out at restart, and breaks logins across servers', () => {
    const unset = { ...safe, SVC_COOKIE_SECRET: null };
    expect(startupWarnings(unset, { login: true, shared: false })).toEqual([
      expect.stringMatching(/^SVC_COOKIE_SECRET is not set: .* every restart logs everyone out; set it/),
    ]);
    expect(startupWarnings(unset, { login: true, shared: true })[0]).toContain(
      'a login on one server is not valid on the others',
    );
  });

  it('says a short runner secret can be guessed', () => {
    expect(startupWarnings({ ...safe, SVC_RPC_SECRET: 'short' }, { login: true, shared: false })).toEqual([
      expect.stringMatching(/^SVC_RPC_SECRET has 5 characters: whoever guesses it can take builds/),
    ]);
  });
});
