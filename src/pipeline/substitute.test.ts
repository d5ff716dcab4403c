import { describe, expect, it } from 'vitest';
import { substituteVariables, substitutionLookup } from './substitute.js';

const variables: Record<string, string> = {
  DRONE_TAG: 'v1.2.3',
  DRONE_COMMIT_SHA: '4f8c2a9d0e1b',
  DRONE_BRANCH: 'feature/login',
  DRONE_REPO_NAME: 'hello-world',
  EMPTY: '',
  PATH_LIKE: 'a/b/c.tar.gz',
};

function expand(text: string): string {
  const result = substituteVariables(text, (name) => variables[name]);
  if (!result.ok) throw new Error(result.error.message);
  return result.text;
}

describe('substituteVariables', () => {
  it.each([
    ['${DRONE_TAG}', 'v1.2.3'],
    ['tags: ${DRONE_TAG}, latest', 'tags: v1.2.3, latest'],
    ['${UNKNOWN}', ''],
    ['${#DRONE_TAG}', '6'],
    ['${DRONE_REPO_NAME^}', 'Hello-world'],
    ['${DRONE_REPO_NAME^^}', 'HELLO-WORLD'],
    ['${DRONE_TAG,}', 'v1.2.3'],
    ['${DRONE_BRANCH,,}', 'feature/login'],
    ['${DRONE_COMMIT_SHA:0:8}', '4f8c2a9d'],
    ['${DRONE_COMMIT_SHA:4}', '2a9d0e1b'],
    ['${DRONE_COMMIT_SHA:-4}', '4f8c2a9d0e1b'],
    ['${DRONE_COMMIT_SHA:20}', ''],
    ['${DRONE_TAG##v}', '1.2.3'],
    ['${DRONE_TAG#v}', '1.2.3'],
    ['${PATH_LIKE%.*}', 'a/b/c.tar'],
    ['${PATH_LIKE%%.*}', 'a/b/c'],
    ['${PATH_LIKE#*/}', 'b/c.tar.gz'],
    ['${PATH_LIKE##*/}', 'b/c.tar.gz'],
    ['${DRONE_BRANCH/\\//-}', 'feature-login'],
    ['${PATH_LIKE//\\//-}', 'a-b-c.tar.gz'],
    ['${DRONE_TAG/#v/version-}', 'version-1.2.3'],
    ['${PATH_LIKE/%.gz/.bz2}', 'a/b/c.tar.bz2'],
    ['${DRONE_TAG/9/x}', 'v1.2.3'],
    ['${EMPTY=fallback}', 'fallback'],
    ['${EMPTY:=fallback}', 'fallback'],
    ['${EMPTY:-fallback}', 'fallback'],
    ['${DRONE_TAG:-fallback}', 'v1.2.3'],
    ['${EMPTY:-${DRONE_TAG}}', 'v1.2.3'],
  ])('%s → %j', (text, expected) => {
    expect(expand(text)).toBe(expected);
  });

  it('keeps $NAME without braces and reads $$ as a literal $', () => {
    expect(expand('echo $HOME $$HOME $${DRONE_TAG} $')).toBe('echo $HOME $HOME ${DRONE_TAG} $');
  });

  it('reads \\\\ and \\/ as \\ and /, as Drone does', () => {
    expect(expand('a\\\\b a\\/b a\\nb')).toBe('a\\b a/b a\\nb');
  });

  it('substitutes in every part of the file, comments included', () => {
    expect(expand('# built from ${DRONE_BRANCH}\nimage: app:${DRONE_TAG}\n')).toBe(
      '# built from feature/login\nimage: app:v1.2.3\n',
    );
  });

  it.each([
    ['echo ${', 0 + 'echo '.length, 'expected a variable name'],
    ['x: ${DRONE_TAG', 3, 'is not closed'],
    ['x: ${DRONE_TAG!}', 3, 'unexpected "!"'],
    ['${A:1:2', 0, 'expected } after the length'],
    ['${A/b', 0, 'expected /replacement}'],
  ])('reports %j as a bad substitution at its offset', (text, offset, fragment) => {
    const result = substituteVariables(text, () => '');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.offset).toBe(offset);
      expect(result.error.message).toContain('bad substitution');
      expect(result.error.message).toContain(fragment);
    }
  });
});

describe('substitutionLookup', () => {
  it('quotes values with line breaks so that the YAML stays valid', () => {
    const lookup = substitutionLookup({ MESSAGE: 'Fix "it"\n\nDetails', TAG: 'v1' });
    expect(lookup('MESSAGE')).toBe('"Fix \\"it\\"\\n\\nDetails"');
    expect(lookup('TAG')).toBe('v1');
    expect(lookup('MISSING')).toBeUndefined();
    expect(lookup('toString')).toBeUndefined();
  });
});
