import { describe, expect, it } from 'vitest';
import { compileYaml } from '../../../test/fixtures/pipelines/compile-input.js';
import { lintText } from '../lint/lint.js';
import { parseManifest } from '../parse.js';
import type { Pipeline } from '../types.js';

const DEPLOY = `kind: pipeline
name: default
steps:
- name: deploy
  image: alpine
  commands: [./deploy.sh]
  environment:
    REGION: eu-west-1
  id_tokens:
    SVC_ID_TOKEN:
      aud: sts.amazonaws.com
    VAULT_ID_TOKEN:
      aud: [https://vault.example.com, vault]
- name: test
  image: alpine
  commands: [go test]
`;

describe('id_tokens: reading and linting', () => {
  it('reads a map of variable names to audiences, one or a list', () => {
    const pipeline = parseManifest(DEPLOY).manifest.documents[0] as Pipeline;
    expect(pipeline.steps[0]?.idTokens).toEqual([
      { env: 'SVC_ID_TOKEN', audience: ['sts.amazonaws.com'], position: { line: 10, column: 5 } },
      {
        env: 'VAULT_ID_TOKEN',
        audience: ['https://vault.example.com', 'vault'],
        position: { line: 12, column: 5 },
      },
    ]);
    expect(pipeline.steps[1]?.idTokens).toEqual([]);
    expect(lintText(DEPLOY, { trusted: false }).diagnostics).toEqual([]);
  });

  it('reports wrong shapes, names, missing audiences and clashes with environment at their line', () => {
    const text = `kind: pipeline
type: ssh
server: { host: example.com }
steps:
- name: deploy
  commands: [./deploy.sh]
  environment:
    TOKEN: x
  id_tokens:
    1TOKEN: { aud: a }
    TOKEN: { aud: a }
    NO_AUD: {}
    EMPTY: { aud: "" }
    TYPO: { aud: a, audience: b }
    LIST: [a]
- name: other
  commands: [true]
  id_tokens: [SVC_ID_TOKEN]
`;
    const found = lintText(text, { trusted: false }).diagnostics.map(
      (d) => `${d.line}:${d.column} ${d.severity} ${d.field}: ${d.message}`,
    );
    expect(found).toEqual([
      expect.stringMatching(/^10:5 error steps\[0\]\.id_tokens\.1TOKEN: is not a usable variable name/),
      expect.stringMatching(
        /^11:5 error steps\[0\]\.id_tokens\.TOKEN: the step's environment sets TOKEN too/,
      ),
      expect.stringMatching(/^12:13 error steps\[0\]\.id_tokens\.NO_AUD\.aud: is required/),
      expect.stringMatching(/^13:14 error steps\[0\]\.id_tokens\.EMPTY\.aud: is required/),
      expect.stringMatching(
        /^14:21 warning steps\[0\]\.id_tokens\.TYPO: unknown field "audience" is ignored/,
      ),
      expect.stringMatching(
        /^15:11 error steps\[0\]\.id_tokens\.LIST: expected an ID token \(a map of fields\)/,
      ),
      expect.stringMatching(
        /^18:14 error steps\[1\]\.id_tokens: expected a map of variable names to \{aud: audience\}/,
      ),
    ]);
  });
});

describe('id_tokens: compiling', () => {
  it('gives each step the tokens the server signed for it, masked, over the environment', async () => {
    const { step, warnings } = await compileYaml(DEPLOY, {
      idTokens: [
        { step: 'deploy', env: 'SVC_ID_TOKEN', token: 'eyJ.aws.sig' },
        { step: 'deploy', env: 'VAULT_ID_TOKEN', token: 'eyJ.vault.sig' },
        { step: 'test', env: 'SVC_ID_TOKEN', token: 'eyJ.not-asked-for.sig' },
      ],
    });
    expect(warnings).toEqual([]);
    expect(step('deploy').secrets).toEqual([
      { name: 'id_tokens.SVC_ID_TOKEN', env: 'SVC_ID_TOKEN', data: 'eyJ.aws.sig', mask: true },
      { name: 'id_tokens.VAULT_ID_TOKEN', env: 'VAULT_ID_TOKEN', data: 'eyJ.vault.sig', mask: true },
    ]);
    expect(step('deploy').envs).not.toHaveProperty('SVC_ID_TOKEN');
    expect(step('deploy').envs.REGION).toBe('eu-west-1');
    expect(step('test').secrets).toEqual([]);
    expect(step('test').envs).not.toHaveProperty('SVC_ID_TOKEN');
  });

  it('leaves the variable empty, with a warning saying why, when the server signed none', async () => {
    const { step, warnings } = await compileYaml(DEPLOY);
    expect(step('deploy').envs.SVC_ID_TOKEN).toBe('');
    expect(step('deploy').envs.VAULT_ID_TOKEN).toBe('');
    expect(warnings).toEqual([
      expect.stringContaining(
        'step "deploy" asks for an ID token in SVC_ID_TOKEN, but the server signed none',
      ),
      expect.stringContaining('step "deploy" asks for an ID token in VAULT_ID_TOKEN'),
    ]);
    expect(warnings[0]).toContain('pull requests from forks get none unless the repository allows it');
  });
});
