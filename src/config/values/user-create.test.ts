import { describe, expect, it } from 'vitest';
import { userCreate } from './user-create.js';

const ctx = { cwd: '/', env: {}, secret: true };
const TOKEN = 'a'.repeat(32);

function problem(raw: string): string {
  const parsed = userCreate.parse(raw, ctx);
  if (parsed.ok) throw new Error(`expected ${raw} to be refused`);
  return parsed.message ?? '';
}

describe('SVC_USER_CREATE', () => {
  it('reads a person, with machine and admin false by default and no token', () => {
    expect(userCreate.parse('username:octocat', ctx)).toEqual({
      ok: true,
      value: { username: 'octocat', machine: false, admin: false, token: null },
    });
  });

  it('reads an administrator machine account with its token', () => {
    expect(userCreate.parse(`username:bot, machine:true, admin:true, token:${TOKEN}`, ctx)).toEqual({
      ok: true,
      value: { username: 'bot', machine: true, admin: true, token: TOKEN },
    });
  });

  it('needs a username', () => {
    expect(problem('admin:true')).toMatch(/^the username is missing; expected username:<name>/);
  });

  it('needs a 32-character token for a machine account', () => {
    expect(problem('username:bot,machine:true')).toMatch(/a machine account needs a token of 32 characters/);
    expect(problem('username:bot,machine:true,token:short')).toMatch(
      /the token has 5 characters instead of 32/,
    );
  });

  it('refuses non-boolean flags, unknown and repeated fields', () => {
    expect(problem('username:a,admin:yes')).toMatch(/admin is "yes", not true or false/);
    expect(problem('username:a,email:a@example.com')).toMatch(/unknown field "email"/);
    expect(problem('username:a,username:b')).toMatch(/field username is given twice/);
  });

  it('never repeats a token, even one given without its field name', () => {
    const message = problem(`username:bot,machine:true,${TOKEN}`);
    expect(message).toMatch(/entry 3 is not a field:value pair/);
    expect(message).not.toContain(TOKEN);
  });

  it('prints the token redacted, and null when there is none', () => {
    expect(userCreate.redact?.({ username: 'bot', machine: true, admin: false, token: TOKEN })).toEqual({
      username: 'bot',
      machine: true,
      admin: false,
      token: '[redacted]',
    });
    expect(userCreate.redact?.({ username: 'me', machine: false, admin: true, token: null })).toMatchObject({
      token: null,
    });
  });
});
