/*
 * Artifacts on the Kubernetes engine, against the API double running pods on the real Docker
 * engine: the workspace's files a step's globs select are read through the pod's files container
 * after the step's container exited (also after a failure, with `when: always`), and
 * `artifacts: from:` puts a stage's artifacts into the workspace before the steps start.
 */
import { describe, expect, it } from 'vitest';
import { busyboxShell, execSpec } from '../../runner/testing/spec.js';
import { dockerForTests } from '../docker/testing.case.js';
import { useKubeStages } from './files.case.js';
import { keepingArtifacts, TEST_ARTIFACTS } from '../../runner/testing/artifacts.js';

const { skip } = await dockerForTests(['local/busybox', 'svc/placeholder', 'svc/git']);

describe.skipIf(skip)('artifacts on the Kubernetes engine', () => {
  const stages = useKubeStages();

  it('uploads the files the globs select, named by their workspace paths', async () => {
    const transport = keepingArtifacts();
    const make =
      'mkdir -p dist/sub build/app/bin reports other && echo a > dist/a.js && echo b > dist/sub/b.js && ' +
      'echo bin > build/app/bin/tool && echo "<testsuite/>" > reports/unit.xml && echo no > other/x && ' +
      'ln -s a.js dist/link && echo notes > notes.txt';
    const artifacts = { ...TEST_ARTIFACTS, paths: [...TEST_ARTIFACTS.paths, '*.txt'] };
    // The workspace as a kubernetes pipeline has it: the volume's own folder (the files container
    // has it as /svc-files/w, so a glob at its top reads that folder and names it back).
    const spec = execSpec([busyboxShell('make', make, { artifacts })], {
      workspace: { base: '/drone/src', path: '/drone/src' },
    });
    const { result, lines } = await stages().run(spec, { artifacts: transport });
    expect(result.status, lines('make').join('\n')).toBe('success');
    expect(transport.uploads.get('out')).toEqual({
      'dist/a.js': 'a\n',
      'dist/sub/b.js': 'b\n',
      'dist/link': '-> a.js',
      'build/app/bin/tool': 'bin\n',
      'reports/unit.xml': '<testsuite/>\n',
      'notes.txt': 'notes\n',
    });
    expect(lines('make').at(-1)).toMatch(/^artifacts: uploaded "out", 6 files, [\d.]+ MB in [\d.]+ s$/);
  }, 120_000);

  it('uploads after a failure only with when: always, and says when nothing matches', async () => {
    const transport = keepingArtifacts();
    const failing = (always: boolean, name: string) =>
      busyboxShell(name, 'mkdir -p dist && echo x > dist/x; exit 2', {
        artifacts: { ...TEST_ARTIFACTS, name, always },
      });
    const { lines } = await stages().run(execSpec([failing(false, 'plain'), failing(true, 'always')]), {
      artifacts: transport,
    });
    expect(lines('plain').at(-1)).toBe(
      // Its test reports are looked for whatever the exit; it wrote none.
      'artifacts: "plain" not uploaded: the step failed (when: always uploads anyway), and no file matches its test reports (reports/*.xml)',
    );
    expect(transport.uploads.get('always')).toEqual({ 'dist/x': 'x\n' });
    const empty = await stages().run(
      execSpec([busyboxShell('none', 'true', { artifacts: TEST_ARTIFACTS })]),
      {
        artifacts: keepingArtifacts(),
      },
    );
    expect(empty.lines('none').at(-1)).toBe(
      'artifacts: "out": no file matches dist/**, build/app, reports/*.xml',
    );
  }, 120_000);

  it('puts the artifacts of `from:` stages into the workspace before the steps', async () => {
    const transport = keepingArtifacts({ 'dist/a.js': 'fetched a\n', 'dist/sub/b.js': 'fetched b\n' });
    const spec = execSpec(
      [busyboxShell('use', 'cat dist/a.js dist/sub/b.js'), busyboxShell('also', 'cat dist/a.js')],
      { artifactsFrom: ['build'], workspace: { base: '/drone/src', path: '/drone/src' } },
    );
    const { result, lines } = await stages().run(spec, { artifacts: transport });
    expect(result.status, [...lines('use'), ...lines('also')].join('\n')).toBe('success');
    const use = lines('use');
    const also = lines('also');
    expect(
      [...use, ...also].filter((l) => l === 'artifacts: fetched those of stage "build" into the workspace'),
    ).toHaveLength(1);
    expect(use).toContain('fetched b');
    expect(also).toContain('fetched a');
  }, 120_000);
});
