import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SPEC_SETTINGS } from '../../test/fixtures/spec-settings.js';
import { DEFAULT_EMBEDDED_DATASOURCE } from './datasource.js';
import { markdownText, renderSettingsDoc, testedLine } from './docs.js';
import { scanTests } from './docs-tests.js';
import { SCHEMA } from './schema/index.js';

const DOC = new URL('../../docs/settings.md', import.meta.url);

describe('docs/settings.md', () => {
  // The same scan as scripts/gen-settings-doc.ts: a test that starts naming a setting makes the doc stale too.
  const doc = renderSettingsDoc(scanTests(SPEC_SETTINGS.map((spec) => spec.name)));

  it('is up to date with the schema and the tests', () => {
    const written = readFileSync(DOC, 'utf8');
    expect(
      written === doc,
      'docs/settings.md is stale (a setting or a test naming one changed): run `npm run docs:settings` and commit the result',
    ).toBe(true);
  });

  const section = (name: string): string => {
    const start = doc.indexOf(`### \`${name}\``);
    const end = doc.indexOf('\n### ', start + 1);
    return doc.slice(start, end < 0 ? undefined : end);
  };

  it('has a section for every setting', () => {
    for (const def of SCHEMA) expect(doc).toContain(`### \`${def.name}\``);
  });

  it('marks svc additions and secrets', () => {
    expect(section('SVC_SERVER_PORT')).toContain('**svc addition**');
    expect(section('SVC_SERVER_HOST')).not.toContain('**svc addition**');
    expect(section('SVC_VMHOST_TOKEN')).toContain('**secret**');
    expect(section('SVC_SHELLSHARE_FINGERPRINT_RSA')).not.toContain('**secret**');
  });

  it('states type, default, required-ness and kinds', () => {
    expect(section('SVC_COOKIE_TIMEOUT')).toMatch(
      /- Type: duration[^\n]*\n- Default: `72h`\n- Required: no\n- Accepted by: server/,
    );
    expect(section('SVC_RUNNER_CAPACITY')).toContain(
      '- Default: `2` (docker, vm runners); none: no limit (kubernetes, ssh runners)',
    );
    expect(section('SVC_VM_IMAGE')).toContain('- Required: yes');
    expect(section('SVC_HTTP_HOST')).toContain('- Default: empty string');
    expect(section('SVC_SCMC_SCOPE')).toContain('- Default: `repo,repo:status,user:email,read:org`');
  });

  it('explains value formats, datasources, the key rule and the default database path', () => {
    expect(doc).toContain('## Value formats');
    expect(doc).toContain('<user>:<password>@tcp(<host>:<port>)/<database>?parseTime=true');
    expect(doc).toContain('<scheme>://<user>:<password>@<host>:<port>/<database>?sslmode=disable');
    expect(doc).toContain(`\`${DEFAULT_EMBEDDED_DATASOURCE}\``);
    expect(doc).toContain('64 hexadecimal characters');
    expect(doc).toContain('SCMC (GitHub');
  });

  it('says where every setting is tested', () => {
    for (const def of SCHEMA) {
      expect(section(def.name)).toMatch(/\n- Tested: behaviour[ :][^\n]*; parsing and validation/);
    }
    expect(section('SVC_RUNNER_NAME')).not.toContain('docs.test.ts');
  });

  it('links the files it found and admits what it did not find', () => {
    expect(testedLine({ behaviour: ['test/e2e/a.test.ts'], parsing: ['src/config/schema.test.ts'] })).toBe(
      '- Tested: behaviour in [test/e2e/a.test.ts](../test/e2e/a.test.ts); parsing and validation in the settings suite ([src/config/schema.test.ts](../src/config/schema.test.ts))',
    );
    expect(testedLine({ behaviour: [], parsing: [] })).toBe(
      '- Tested: behaviour: not tested by name; parsing and validation: not tested by name',
    );
  });

  it('escapes what Markdown would misread, outside code spans only', () => {
    expect(markdownText('entries <owner>/* or `<owner>/*`')).toBe('entries \\<owner\\>/\\* or `<owner>/*`');
  });
});
