import { splitList } from './collections.js';
import { fail, ok, REDACTED, type Codec } from './codec.js';

/** The account SVC_USER_CREATE seeds at start-up. */
export interface UserCreate {
  readonly username: string;
  readonly machine: boolean;
  readonly admin: boolean;
  /** svc's API token for the account; required (32 characters) for a machine account. */
  readonly token: string | null;
}

const FIELDS = ['username', 'machine', 'admin', 'token'] as const;
type Field = (typeof FIELDS)[number];
const TOKEN_LENGTH = 32;
const EXPECTED =
  'username:<name>,machine:<true|false>,admin:<true|false>,token:<32 characters>, such as username:octocat,admin:true';

/** SVC_USER_CREATE. Messages never repeat the token. */
export const userCreate: Codec<UserCreate> = {
  type: 'user',
  expected: EXPECTED,
  parse(raw) {
    const fields = new Map<Field, string>();
    const problems: string[] = [];
    splitList(raw).forEach((entry, index) => {
      const colon = entry.indexOf(':');
      const name = entry.slice(0, colon).trim();
      // Without a colon the entry could be a bare token: name it by position, never quote it.
      if (colon < 0) problems.push(`entry ${index + 1} is not a field:value pair`);
      else if (!isField(name)) problems.push(`unknown field ${JSON.stringify(name)}`);
      else if (fields.has(name)) problems.push(`field ${name} is given twice`);
      else fields.set(name, entry.slice(colon + 1).trim());
    });
    const username = fields.get('username') ?? '';
    if (username === '') problems.push('the username is missing');
    const machine = flag(fields, 'machine', problems);
    const admin = flag(fields, 'admin', problems);
    const token = fields.get('token') ?? null;
    if (token !== null && token.length !== TOKEN_LENGTH) {
      problems.push(`the token has ${token.length} characters instead of ${TOKEN_LENGTH}`);
    }
    if (machine && token === null)
      problems.push(`a machine account needs a token of ${TOKEN_LENGTH} characters`);
    if (problems.length > 0) return fail(`${problems.join('; ')}; expected ${EXPECTED}`);
    return ok({ username, machine, admin, token });
  },
  print: (value) => ({ ...value }),
  redact: (value) => ({ ...value, token: value.token === null ? null : REDACTED }),
};

function isField(name: string): name is Field {
  return (FIELDS as readonly string[]).includes(name);
}

function flag(fields: ReadonlyMap<Field, string>, name: 'machine' | 'admin', problems: string[]): boolean {
  const value = fields.get(name) ?? 'false';
  if (value !== 'true' && value !== 'false') {
    problems.push(`${name} is ${JSON.stringify(value)}, not true or false`);
  }
  return value === 'true';
}
