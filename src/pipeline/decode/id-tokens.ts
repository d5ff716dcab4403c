import type { Diagnostics } from '../diagnostics.js';
import type { IdTokenRequest } from '../types.js';
import type { TreeNode } from '../yaml/tree.js';
import { fieldsOf } from './fields.js';
import { child, readMap } from './read.js';

/** A variable name the shells of every runner kind can read: letters, digits and `_`, not first a digit. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const ID_TOKEN_FIELDS = {
  what: 'an ID token',
  known: ['aud'],
  docs: 'see "OIDC tokens" in docs/pipelines.md',
} as const;

/**
 * A step's `id_tokens` (svc addition, GitLab's shape): a map of variable names to `{aud: audience}`
 * or `{aud: [audiences]}`; each variable receives a JSON Web Token the server signs for this step.
 * A name the step's `environment` also sets is an error: one of the two values would be lost.
 */
export function readIdTokens(
  node: TreeNode | undefined,
  field: string,
  environment: Readonly<Record<string, unknown>>,
  diagnostics: Diagnostics,
): IdTokenRequest[] {
  if (node === undefined) return [];
  const map = readMap(
    node,
    field,
    'a map of variable names to {aud: audience}, e.g. SVC_ID_TOKEN: {aud: sts.amazonaws.com}',
    diagnostics,
  );
  const requests: IdTokenRequest[] = [];
  for (const entry of map?.entries ?? []) {
    const entryField = child(field, entry.key);
    if (!VARIABLE_NAME.test(entry.key)) {
      diagnostics.error(
        entry.keyPosition,
        entryField,
        'is not a usable variable name; expected letters, digits and _, not starting with a digit, e.g. SVC_ID_TOKEN',
      );
      continue;
    }
    if (Object.hasOwn(environment, entry.key)) {
      diagnostics.error(
        entry.keyPosition,
        entryField,
        `the step's environment sets ${entry.key} too; expected one of them only`,
      );
      continue;
    }
    const fields = fieldsOf(entry.value, entryField, ID_TOKEN_FIELDS, diagnostics);
    if (fields === undefined) continue;
    const audience = fields.strings('aud', 'the audience the token is for, e.g. aud: sts.amazonaws.com');
    if (audience.length === 0 || audience.some((aud) => aud.trim() === '')) {
      diagnostics.error(
        fields.at('aud'),
        fields.field('aud'),
        'is required: expected the audience the token is for (who will verify it), e.g. aud: sts.amazonaws.com, or a list of them',
      );
      continue;
    }
    requests.push({ env: entry.key, audience, position: entry.keyPosition });
  }
  return requests;
}
