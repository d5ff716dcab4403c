/*
 * Artifacts on the real Docker engine (the runner's side): the workspace's files a step's globs
 * select are read out of the exited container and uploaded as one tar named by workspace paths;
 * a failed step uploads only with `when: always`; `artifacts: from:` puts a stage's artifacts into
 * the workspace after the clone and before the other steps.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ExecSpec } from '../../core/engine.js';
import type { ArtifactTransport } from '../../runner/artifacts/transport.js';
import { StageExecutor } from '../../runner/executor.js';
import { MemoryReporter } from '../../runner/memory-reporter.js';
import { busyboxShell, execSpec } from '../../runner/testing/spec.js';
import { DockerEngine } from './engine.js';
import { dockerForTests } from './testing.case.js';
import { keepingArtifacts, TEST_ARTIFACTS } from '../../runner/testing/artifacts.js';

const { docker, skip } = await dockerForTests(['local/busybox']);
const owner = `svc-test-${randomUUID().slice(0, 8)}`;

const sh = busyboxShell;

async function run(spec: ExecSpec, transport: ArtifactTransport) {
  if (docker === undefined) throw new Error('no Docker engine');
  const reporter = new MemoryReporter();
  const executor = new StageExecutor({ engine: new DockerEngine({ docker, owner }) });
  const result = await executor.execute(spec, { reporter, artifacts: transport });
  return { result, lines: (step: string) => reporter.lines(step) };
}

describe.skipIf(skip)('artifacts on the Docker engine', () => {
  it('uploads the files the globs select, named by their workspace paths', async () => {
    const transport = keepingArtifacts();
    const make =
      'mkdir -p dist/sub build/app/bin reports other && echo a > dist/a.js && echo b > dist/sub/b.js && ' +
      'echo bin > build/app/bin/tool && echo "<testsuite/>" > reports/unit.xml && echo no > other/x && ' +
      'echo hidden > dist/.hidden && ln -s a.js dist/link';
    const { result, lines } = await run(
      execSpec([sh('make', make, { artifacts: TEST_ARTIFACTS })]),
      transport,
    );
    expect(result.status).toBe('success');
    expect(transport.uploads.get('out')).toEqual({
      'dist/a.js': 'a\n',
      'dist/sub/b.js': 'b\n',
      'dist/link': '-> a.js',
      'build/app/bin/tool': 'bin\n',
      'reports/unit.xml': '<testsuite/>\n',
    });
    expect(lines('make').at(-1)).toMatch(/^artifacts: uploaded "out", 5 files, [\d.]+ MB in [\d.]+ s$/);
  }, 60_000);

  it('uploads after a failure only with when: always, and says when nothing matches', async () => {
    const transport = keepingArtifacts();
    const failing = (always: boolean, name: string) =>
      sh(name, 'mkdir -p dist && echo x > dist/x; exit 2', {
        artifacts: { ...TEST_ARTIFACTS, name, always },
      });
    const { lines } = await run(execSpec([failing(false, 'plain'), failing(true, 'always')]), transport);
    expect(lines('plain').at(-1)).toBe(
      // Its test reports are looked for whatever the exit; it wrote none.
      'artifacts: "plain" not uploaded: the step failed (when: always uploads anyway), and no file matches its test reports (reports/*.xml)',
    );
    expect(transport.uploads.get('always')).toEqual({ 'dist/x': 'x\n' });
    const empty = await run(
      execSpec([sh('none', 'true', { artifacts: TEST_ARTIFACTS })]),
      keepingArtifacts(),
    );
    expect(empty.lines('none').at(-1)).toBe(
      'artifacts: "out": no file matches dist/**, build/app, reports/*.xml',
    );
  }, 60_000);

  it('puts the artifacts of `from:` stages into the workspace before the steps', async () => {
    const transport = keepingArtifacts({ 'dist/a.js': 'fetched a\n', 'dist/sub/b.js': 'fetched b\n' });
    const spec = execSpec([sh('use', 'cat dist/a.js dist/sub/b.js'), sh('also', 'cat dist/a.js')], {
      artifactsFrom: ['build'],
    });
    const { result, lines } = await run(spec, transport);
    expect(result.status).toBe('success');
    const use = lines('use');
    const also = lines('also');
    // Fetched once, by whichever step got there first; both see the files.
    expect(
      [...use, ...also].filter((l) => l === 'artifacts: fetched those of stage "build" into the workspace'),
    ).toHaveLength(1);
    expect(use).toContain('fetched b');
    expect(also).toContain('fetched a');
  }, 60_000);
});
