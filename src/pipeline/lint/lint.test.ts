import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../parse.js';
import { substitutionLookup } from '../substitute.js';
import { lintManifest, lintSubstituted, lintText } from './lint.js';

const corpus = (file: string) =>
  readFileSync(fileURLToPath(new URL(`../../../test/fixtures/pipelines/${file}`, import.meta.url)), 'utf8');

describe('lintText', () => {
  it('allows trusted repositories what untrusted ones may not use', () => {
    const text = corpus('invalid/untrusted.yml');
    expect(lintText(text, { trusted: false }).valid).toBe(false);
    const trusted = lintText(text, { trusted: true });
    expect(trusted.diagnostics).toEqual([]);
    expect(trusted.valid).toBe(true);
  });

  it('keeps an untrusted kubernetes pipeline from a service account, host aliases and DNS settings', () => {
    const text = `kind: pipeline
type: kubernetes
service_account_name: deployer
host_aliases: [{ ip: 10.0.0.1, hostnames: [registry] }]
dns_config: { nameservers: [10.0.0.53] }
node_selector: { pool: ci }
steps: [{ name: a, image: alpine }]
`;
    const errors = lintText(text, { trusted: false }).diagnostics.map((d) => `${d.line}: ${d.field}`);
    expect(errors).toEqual(['3: service_account_name', '4: host_aliases', '5: dns_config']);
    expect(lintText(text, { trusted: true }).valid).toBe(true);
  });

  it('counts a file with warnings only as valid', () => {
    const result = lintText(corpus('valid/warnings.yml'), { trusted: false });
    expect(result.valid).toBe(true);
    expect(result.diagnostics.length).toBeGreaterThan(0);
    expect(result.diagnostics.every((d) => d.severity === 'warning')).toBe(true);
  });

  it('orders diagnostics of every source by position', () => {
    const text =
      'kind: pipeline\nsteps:\n- name: a\n  image: x\n  privileged: true\n  imgae: y\n  depends_on: [b]\n- name: ${A\n';
    const lines = lintText(text, { trusted: false }).diagnostics.map((d) => `${d.line}:${d.column}`);
    expect(lines).toEqual([...lines].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })));
    expect(lines).toEqual(['5:3', '6:3', '7:16', '8:3', '8:9']);
  });
});

describe('lintSubstituted (what server builds and svc exec read)', () => {
  const lookup = substitutionLookup({ DRONE_BRANCH: 'main', MESSAGE: '"two"\nlines' });

  it('substitutes before parsing: ${X} the value, $${X} for the shell, unknown names empty, line breaks quoted', () => {
    const raw =
      'kind: pipeline\nsteps:\n- name: a\n  image: x\n  commands: [ "echo ${DRONE_BRANCH} $${HOME} [${NOPE}]", ${MESSAGE} ]\n';
    const result = lintSubstituted(raw, lookup, { trusted: false });
    expect(result.valid).toBe(true);
    expect(result.text).toContain('"echo main ${HOME} []", "\\"two\\"\\nlines"');
    const step =
      result.manifest.documents[0]?.kind === 'pipeline' ? result.manifest.documents[0].steps[0] : undefined;
    expect(step?.commands).toEqual(['echo main ${HOME} []', '"two"\nlines']);
  });

  it('fails a malformed expression at its line and column, as the build does', () => {
    const result = lintSubstituted('kind: pipeline\nsteps:\n- name: ${A\n', lookup, { trusted: false });
    expect(result.valid).toBe(false);
    expect(result.diagnostics.map((d) => `${d.line}:${d.column}`)).toEqual(['3:9']);
  });
});

describe('lintManifest', () => {
  it('checks what spans documents, from a manifest read earlier', () => {
    const { manifest } = parseManifest(
      'kind: pipeline\nname: a\ndepends_on: [b]\nsteps: [{name: s, image: x}]\n',
    );
    expect(lintManifest(manifest, { trusted: true })).toEqual([
      {
        severity: 'error',
        line: 3,
        column: 14,
        field: 'depends_on[0]',
        message: 'unknown pipeline "b"; expected one of: a',
      },
    ]);
  });
});
