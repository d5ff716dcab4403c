import { describe, expect, it } from 'vitest';
import { lintText } from '../lint/lint.js';
import { parseManifest } from '../parse.js';
import type { Pipeline } from '../types.js';

const NPM = `kind: pipeline
name: default
steps:
- name: deps
  image: node:22
  cache:
    key: npm-{{ checksum "package-lock.json" }}-main
    restore_keys: [npm-]
    paths: [node_modules, /root/.npm]
    policy: pull-push
  commands: [npm ci]
- name: test
  image: node:22
  commands: [npm test]
`;

function pipelineOf(text: string): Pipeline {
  return parseManifest(text).manifest.documents[0] as Pipeline;
}

/** The diagnostics of a file as `line:column severity field: message`. */
function lint(text: string): string[] {
  return lintText(text, { trusted: false }).diagnostics.map(
    (d) => `${d.line}:${d.column} ${d.severity} ${d.field}: ${d.message}`,
  );
}

describe('cache: reading', () => {
  it('reads key, restore_keys, paths and policy, and nothing for a step without cache', () => {
    const pipeline = pipelineOf(NPM);
    expect(pipeline.steps[0]?.cache).toEqual({
      key: 'npm-{{ checksum "package-lock.json" }}-main',
      restoreKeys: ['npm-'],
      paths: ['node_modules', '/root/.npm'],
      policy: 'pull-push',
      position: { line: 6, column: 3 },
    });
    expect(pipeline.steps[1]?.cache).toBeUndefined();
    expect(lint(NPM)).toEqual([]);
  });

  it('defaults to pull-push without restore keys; takes pull and push, spaces in the braces, several checksums', () => {
    const text = `kind: pipeline
type: ssh
server: { host: example.com }
steps:
- name: restore
  commands: [make]
  cache:
    key: "{{checksum \\"go.sum\\"}}-{{   checksum   \\"web/package-lock.json\\"   }}"
    paths: [vendor]
    policy: pull
- name: save
  commands: [make]
  cache: { key: plain, paths: [./out/, out2], policy: push }
- name: default
  commands: [make]
  cache: { key: k, paths: .cache }
`;
    expect(lint(text)).toEqual([]);
    const [restore, save, fallback] = pipelineOf(text).steps;
    expect(restore?.cache).toMatchObject({
      key: '{{checksum "go.sum"}}-{{   checksum   "web/package-lock.json"   }}',
      restoreKeys: [],
      policy: 'pull',
    });
    expect(save?.cache).toMatchObject({ paths: ['./out/', 'out2'], policy: 'push' });
    expect(fallback?.cache).toMatchObject({ paths: ['.cache'], policy: 'pull-push' });
  });

  it('is allowed in every pipeline type and on plugin steps', () => {
    const cache = `  cache: { key: k, paths: [p] }\n`;
    for (const type of ['docker', 'kubernetes', 'vm', 'exec', 'ssh', 'macstadium']) {
      const text = `kind: pipeline\ntype: ${type}\n${type === 'ssh' ? 'server: { host: h }\n' : ''}steps:\n- name: s\n  image: plugins/s3\n  commands: [true]\n${cache}`;
      const found = lint(text).filter((line) => line.includes('cache'));
      expect({ type, found }).toEqual({ type, found: [] });
      expect(pipelineOf(text).steps[0]?.cache?.key).toBe('k');
    }
    const plugin = `kind: pipeline\nsteps:\n- name: publish\n  image: plugins/s3\n  settings: { bucket: b }\n${cache}`;
    expect(lint(plugin)).toEqual([]);
  });

  it('gets build variables from the substitution done before reading', () => {
    const text = NPM.replace('-main', '-${DRONE_BRANCH}');
    const found = lintText(text, { trusted: false });
    expect(found.diagnostics).toEqual([]);
    const substituted = parseManifest(text.replace('${DRONE_BRANCH}', 'feature/x'));
    expect((substituted.manifest.documents[0] as Pipeline).steps[0]?.cache?.key).toBe(
      'npm-{{ checksum "package-lock.json" }}-feature/x',
    );
  });
});

describe('cache: errors', () => {
  it('reports a cache that is not a map, and a missing key and paths', () => {
    const text = `kind: pipeline
steps:
- name: a
  image: alpine
  cache: [node_modules]
- name: b
  image: alpine
  cache:
    policy: pull
- name: c
  image: alpine
  cache:
    key: ""
    paths: []
`;
    expect(lint(text)).toEqual([
      expect.stringMatching(
        /^5:10 error steps\[0\]\.cache: expected a map with key and paths, e.g. \{key: npm-\{\{ checksum "package-lock.json" \}\}, paths: \[node_modules\]\} .*, found a list$/,
      ),
      expect.stringMatching(
        /^9:5 error steps\[1\]\.cache\.key: is required: expected the name the cache is saved under, e\.g\. key: npm-/,
      ),
      expect.stringMatching(
        /^9:5 error steps\[1\]\.cache\.paths: is required: expected the directories or files to save.*e\.g\. paths: \[node_modules, \/root\/\.npm\]$/,
      ),
      expect.stringMatching(/^13:10 error steps\[2\]\.cache\.key: is required/),
      expect.stringMatching(/^14:12 error steps\[2\]\.cache\.paths: is required/),
    ]);
    expect(pipelineOf(text).steps.map((step) => step.cache)).toEqual([undefined, undefined, undefined]);
  });

  it('reports keys that are too long or whose {{ }} is not a checksum of a workspace file', () => {
    const long = 'k'.repeat(513);
    const text = `kind: pipeline
steps:
- name: a
  image: alpine
  cache:
    key: ${long}
    paths: [p]
- name: b
  image: alpine
  cache: { key: 'npm-{{ hash "a" }}', paths: [p] }
- name: c
  image: alpine
  cache: { key: 'npm-{{ checksum "a"', paths: [p] }
- name: d
  image: alpine
  cache: { key: 'npm-{{ checksum "" }}', paths: [p] }
- name: e
  image: alpine
  cache: { key: 'npm-{{ checksum "../a" }}', paths: [p] }
- name: f
  image: alpine
  cache: { key: 'npm-{{ checksum "/etc/passwd" }}', paths: [p] }
- name: g
  image: alpine
  cache: { key: 'npm-{{ checksum a }}', paths: [p] }
- name: h
  image: alpine
  cache: { key: [k], paths: [p] }
`;
    expect(lint(text)).toEqual([
      expect.stringMatching(
        /^6:10 error steps\[0\]\.cache\.key: is 513 characters long; expected at most 512, e\.g\. /,
      ),
      expect.stringMatching(
        /^10:17 error steps\[1\]\.cache\.key: "\{\{ hash "a" \}\}" is not a checksum; expected \{\{ checksum "FILE" \}\} with a file of the workspace in double quotes, e\.g\. /,
      ),
      expect.stringMatching(
        /^13:17 error steps\[2\]\.cache\.key: has a \{\{ without a closing \}\}; expected \{\{ checksum "FILE" \}\}, e\.g\. /,
      ),
      expect.stringMatching(
        /^16:17 error steps\[3\]\.cache\.key: "\{\{ checksum "" \}\}": names no file; expected a file of the workspace, e\.g\. /,
      ),
      expect.stringMatching(
        /^19:17 error steps\[4\]\.cache\.key: "\{\{ checksum "\.\.\/a" \}\}": "\.\.\/a" has a \.\. segment; expected a file inside the workspace/,
      ),
      expect.stringMatching(
        /^22:17 error steps\[5\]\.cache\.key: "\{\{ checksum "\/etc\/passwd" \}\}": "\/etc\/passwd" is not relative; expected a file relative to the workspace/,
      ),
      expect.stringMatching(/^25:17 error steps\[6\]\.cache\.key: "\{\{ checksum a \}\}" is not a checksum/),
      expect.stringMatching(
        /^28:17 error steps\[7\]\.cache\.key: expected a cache key, e\.g\. key: npm-\{\{ checksum "package-lock\.json" \}\}, found a list$/,
      ),
    ]);
    expect(pipelineOf(text).steps.every((step) => step.cache === undefined)).toBe(true);
  });

  it('reports bad paths: not strings, empty, .., ~, listed twice', () => {
    const text = `kind: pipeline
steps:
- name: a
  image: alpine
  cache:
    key: k
    paths:
    - node_modules
    - ""
    - ../outside
    - a/../../b
    - ~/.npm
    - ./node_modules/
    - { dir: x }
    - /root/.npm
    - /root//.npm
- name: b
  image: alpine
  cache: { key: k, paths: { dir: x } }
`;
    expect(lint(text)).toEqual([
      expect.stringMatching(
        /^9:7 error steps\[0\]\.cache\.paths\[1\]: is empty; expected a directory or file to save, e\.g\. node_modules or \/root\/\.npm$/,
      ),
      expect.stringMatching(
        /^10:7 error steps\[0\]\.cache\.paths\[2\]: "\.\.\/outside" has a \.\. segment; expected a path inside the workspace \(e\.g\. node_modules\) or an absolute one/,
      ),
      expect.stringMatching(
        /^11:7 error steps\[0\]\.cache\.paths\[3\]: "a\/\.\.\/\.\.\/b" has a \.\. segment/,
      ),
      expect.stringMatching(
        /^12:7 error steps\[0\]\.cache\.paths\[4\]: "~\/\.npm": ~ is not expanded; expected a path relative to the workspace or absolute, e\.g\. \/root\/\.npm$/,
      ),
      expect.stringMatching(
        /^13:7 error steps\[0\]\.cache\.paths\[5\]: "\.\/node_modules\/" is listed already \(as "node_modules"\); expected each path once$/,
      ),
      expect.stringMatching(/^14:7 error steps\[0\]\.cache\.paths\[6\]: expected a string, found a map/),
      expect.stringMatching(
        /^16:7 error steps\[0\]\.cache\.paths\[8\]: "\/root\/\/\.npm" is listed already \(as "\/root\/\.npm"\)/,
      ),
      expect.stringMatching(
        /^19:27 error steps\[1\]\.cache\.paths: expected paths to save, e\.g\. paths: \[node_modules\] \(a list of strings\), found a map$/,
      ),
    ]);
    expect(pipelineOf(text).steps.every((step) => step.cache === undefined)).toBe(true);
  });

  it('reports bad restore_keys and policies, and warns about unknown fields', () => {
    const text = `kind: pipeline
steps:
- name: a
  image: alpine
  cache:
    key: k
    restore_keys: [npm-, "", 'npm-{{ checksum }}-', [x]]
    paths: [p]
    policy: pull-only
    when: always
- name: b
  image: alpine
  cache: { key: k, paths: [p], policy: [pull], restore_keys: { a: b }, pahts: [q] }
`;
    expect(lint(text)).toEqual([
      expect.stringMatching(
        /^7:26 error steps\[0\]\.cache\.restore_keys\[1\]: is empty; expected a key prefix, e\.g\. restore_keys: \[npm-\]$/,
      ),
      expect.stringMatching(
        /^7:30 error steps\[0\]\.cache\.restore_keys\[2\]: "\{\{ checksum \}\}" is not a checksum/,
      ),
      expect.stringMatching(
        /^7:53 error steps\[0\]\.cache\.restore_keys\[3\]: expected a string, found a list/,
      ),
      expect.stringMatching(
        /^9:13 error steps\[0\]\.cache\.policy: unknown policy "pull-only"; expected pull-push \(restore before the step, save after it; the default\), pull \(restore only\) or push \(save only\)$/,
      ),
      expect.stringMatching(
        /^10:5 warning steps\[0\]\.cache: unknown field "when" is ignored; a cache accepts: key, restore_keys, paths, policy \(see "Caches" in docs\/pipelines\.md\)$/,
      ),
      expect.stringMatching(/^13:40 error steps\[1\]\.cache\.policy: expected pull-push .*, found a list$/),
      expect.stringMatching(
        /^13:62 error steps\[1\]\.cache\.restore_keys: expected key prefixes, e\.g\. restore_keys: \[npm-\] \(a list of strings\), found a map$/,
      ),
      expect.stringMatching(
        /^13:72 warning steps\[1\]\.cache: unknown field "pahts" is ignored; did you mean "paths"\?$/,
      ),
    ]);
    expect(pipelineOf(text).steps.every((step) => step.cache === undefined)).toBe(true);
  });

  it('refuses a cache on a service or a detached step: neither has an end after which to save', () => {
    const text = `kind: pipeline
services:
- name: db
  image: postgres
  cache: { key: k, paths: [p] }
steps:
- name: watch
  image: alpine
  detach: true
  cache:
    key: k
    paths: [../p]
`;
    expect(lint(text)).toEqual([
      expect.stringMatching(
        /^5:3 error services\[0\]\.cache: a service runs in the background for the whole pipeline, with no end after which to save a cache; expected cache on a step, e\.g\. /,
      ),
      expect.stringMatching(
        /^10:3 error steps\[0\]\.cache: a detached step \(detach: true\) has no end after which to save a cache; expected cache on a step without detach$/,
      ),
      expect.stringMatching(/^12:13 error steps\[0\]\.cache\.paths\[0\]: "\.\.\/p" has a \.\. segment/),
    ]);
    const pipeline = pipelineOf(text);
    expect([pipeline.services[0]?.cache, pipeline.steps[0]?.cache]).toEqual([undefined, undefined]);
  });
});
