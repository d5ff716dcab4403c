import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { CommandIO } from './io.js';
import { lintCommand } from './lint.js';

// Files are linted from a scratch working directory, by relative path, as a user would.
const cwd = mkdtempSync(join(tmpdir(), 'svc-lint-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const corpus = (file: string) =>
  fileURLToPath(new URL(`../../test/fixtures/pipelines/${file}`, import.meta.url));
copyFileSync(corpus('valid/minimal.yml'), join(cwd, 'minimal.yml'));
copyFileSync(corpus('valid/documents.yml'), join(cwd, 'documents.yml'));
copyFileSync(corpus('invalid/untrusted.yml'), join(cwd, 'untrusted.yml'));
mkdirSync(join(cwd, 'dir'));
writeFileSync(
  join(cwd, '.drone.yml'),
  [
    'kind: pipeline',
    'name: build',
    'steps:',
    '- name: test',
    '  imgae: golang',
    '  image: golang',
    '  commands: [go test]',
    '- name: publish',
    '  image: plugins/docker',
    '  depends_on: [tset]',
    '---',
    'kind: pipeline',
    'type: kubernetes',
    'name: deploy',
    'depends_on: [build]',
    'services:',
    '- {name: redis, image: redis}',
    'steps:',
    '- {name: apply, image: kubectl}',
    '',
  ].join('\n'),
);

async function run(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CommandIO = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    cwd,
  };
  const code = await lintCommand(args, io);
  return { code, stdout, stderr };
}

describe('svc lint', () => {
  it('exits 0 for a valid file and says so', async () => {
    expect(await run('minimal.yml')).toEqual({
      code: 0,
      stdout: '1 file checked: 1 valid, 0 invalid (0 errors, 0 warnings)\n',
      stderr: '',
    });
  });

  it('prints file:line:column: severity: field: message for every problem and exits 1', async () => {
    const result = await run('.drone.yml');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n')).toEqual([
      '.drone.yml:5:3: warning: steps[0]: unknown field "imgae" is ignored; did you mean "image"?',
      '.drone.yml:10:16: error: steps[1].depends_on[0]: unknown step "tset"; did you mean "test"?',
      '1 file checked: 0 valid, 1 invalid (1 error, 1 warning)',
      '',
    ]);
  });

  it("reports the problems of a step's cache (svc addition) and accepts a good one", async () => {
    writeFileSync(
      join(cwd, 'cache.yml'),
      [
        'kind: pipeline',
        'steps:',
        '- name: deps',
        '  image: node:22',
        '  commands: [npm ci]',
        '  cache:',
        '    key: npm-{{ checksum "package-lock.json" }}',
        '    paths: [node_modules, ../up]',
        '    policy: always',
        '- name: test',
        '  image: node:22',
        '  commands: [npm test]',
        '  cache: { key: \'npm-{{ checksum "package-lock.json" }}\', restore_keys: [npm-], paths: [node_modules] }',
        '',
      ].join('\n'),
    );
    const result = await run('cache.yml');
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toEqual([
      'cache.yml:8:27: error: steps[0].cache.paths[1]: "../up" has a .. segment; expected a path inside the workspace (e.g. node_modules) or an absolute one (e.g. /root/.npm)',
      'cache.yml:9:13: error: steps[0].cache.policy: unknown policy "always"; expected pull-push (restore before the step, save after it; the default), pull (restore only) or push (save only)',
      '1 file checked: 0 valid, 1 invalid (2 errors, 0 warnings)',
      '',
    ]);
  });

  it('reports the problems of artifacts and artifacts: from: (svc addition) and accepts good ones', async () => {
    writeFileSync(
      join(cwd, 'artifacts.yml'),
      [
        'kind: pipeline',
        'name: build',
        'steps:',
        '- name: compile',
        '  image: golang',
        '  commands: [make]',
        '  artifacts:',
        '    paths: [dist/**, /tmp/out]',
        '    expire_in: 7d',
        '- name: test',
        '  image: golang',
        '  commands: [make test]',
        '  artifacts: { name: reports, when: always, reports: { junit: [reports/*.xml] } }',
        '---',
        'kind: pipeline',
        'name: deploy',
        'artifacts: { from: [build] }',
        'steps:',
        '- name: upload',
        '  image: plugins/s3',
        '',
      ].join('\n'),
    );
    const result = await run('artifacts.yml');
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')).toEqual([
      'artifacts.yml:8:22: error: steps[0].artifacts.paths[1]: "/tmp/out" is absolute; artifacts are taken from the workspace, so expected a glob relative to it, e.g. dist/**',
      'artifacts.yml:9:16: error: steps[0].artifacts.expire_in: "7d" is not a duration; expected a duration: numbers with the units h, m, s or ms, e.g. 30m, 12h or 1h30m (days are not a unit: 7 days is 168h)',
      'artifacts.yml:17:21: error: artifacts.from[0]: pipeline "build" is not in depends_on, so it may not have run yet when this pipeline starts; expected a pipeline this one depends on, e.g. depends_on: [build]',
      '1 file checked: 0 valid, 1 invalid (3 errors, 0 warnings)',
      '',
    ]);
  });

  it('checks what untrusted repositories may not use unless --trusted', async () => {
    const untrusted = await run('untrusted.yml');
    expect(untrusted.code).toBe(1);
    expect(untrusted.stdout).toContain(
      'untrusted.yml:12:5: error: steps[0].privileged: not allowed in an untrusted repository',
    );
    expect(await run('--trusted', 'untrusted.yml')).toMatchObject({ code: 0 });
  });

  it('prints one JSON array with an entry per file with --json', async () => {
    const result = await run('--json', '.drone.yml', 'minimal.yml', 'documents.yml');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    const report: unknown = JSON.parse(result.stdout);
    expect(report).toEqual([
      {
        file: '.drone.yml',
        documents: [
          {
            kind: 'pipeline',
            type: 'docker',
            name: 'build',
            steps: ['test', 'publish'],
            services: [],
            depends_on: [],
          },
          {
            kind: 'pipeline',
            type: 'kubernetes',
            name: 'deploy',
            steps: ['apply'],
            services: ['redis'],
            depends_on: ['build'],
          },
        ],
        errors: [
          {
            line: 10,
            column: 16,
            message: 'steps[1].depends_on[0]: unknown step "tset"; did you mean "test"?',
          },
        ],
        warnings: [
          {
            line: 5,
            column: 3,
            message: 'steps[0]: unknown field "imgae" is ignored; did you mean "image"?',
          },
        ],
      },
      {
        file: 'minimal.yml',
        documents: [
          {
            kind: 'pipeline',
            type: 'docker',
            name: 'default',
            steps: ['test'],
            services: [],
            depends_on: [],
          },
        ],
        errors: [],
        warnings: [],
      },
      {
        file: 'documents.yml',
        documents: [
          {
            kind: 'pipeline',
            type: 'docker',
            name: 'publish',
            steps: ['publish'],
            services: [],
            depends_on: [],
          },
          { kind: 'secret', name: 'docker_username', steps: [], services: [], depends_on: [] },
          { kind: 'secret', name: 'docker_password', steps: [], services: [], depends_on: [] },
          { kind: 'secret', name: 'legacy', steps: [], services: [], depends_on: [] },
          { kind: 'template', name: '', steps: [], services: [], depends_on: [] },
          { kind: 'signature', name: '', steps: [], services: [], depends_on: [] },
        ],
        errors: [],
        warnings: [],
      },
    ]);
    expect(result.stdout).toBe(`${JSON.stringify(report, null, 2)}\n`);
  });

  it('reports a file it cannot read as invalid (exit 1) and still lints the others', async () => {
    const text = await run('missing.yml', 'dir', 'minimal.yml');
    expect(text.code).toBe(1);
    expect(text.stdout.split('\n')).toEqual([
      'missing.yml: error: cannot read the file: no such file',
      'dir: error: cannot read the file: it is a directory; expected a pipeline file',
      '3 files checked: 1 valid, 2 invalid (2 errors, 0 warnings)',
      '',
    ]);
    const json = await run('--json', 'missing.yml');
    expect(JSON.parse(json.stdout)).toEqual([
      {
        file: 'missing.yml',
        documents: [],
        errors: [{ line: 0, column: 0, message: 'cannot read the file: no such file' }],
        warnings: [],
      },
    ]);
  });

  it('reads files given after -- even when they look like options', async () => {
    copyFileSync(corpus('valid/minimal.yml'), join(cwd, '--trusted'));
    expect(await run('--', '--trusted')).toMatchObject({ code: 0 });
  });

  it.each([
    [[], 'missing FILE'],
    [['--json'], 'missing FILE'],
    [['--strict', 'minimal.yml'], 'unknown option "--strict"'],
  ])('refuses %j with the usage and exit 2', async (args, problem) => {
    const result = await run(...args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      new RegExp(`^svc lint: ${problem}.*\\n\\nUsage: svc lint \\[--trusted\\] \\[--json\\] FILE\\.\\.\\.`),
    );
  });

  it.each(['--help', '-h'])('%s prints the usage, with the exit codes, and exits 0', async (flag) => {
    const result = await run(flag);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Usage: svc lint [--trusted] [--json] FILE...');
    expect(result.stdout).toContain('Exit codes: 0 every file is valid');
    expect(result.stdout).toContain('1 a file has errors or cannot be read');
  });
});
