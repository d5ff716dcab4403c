import { describe, expect, it } from 'vitest';
import { compileYaml } from '../../../test/fixtures/pipelines/compile-input.js';
import { FILES_CONTAINER, movesFiles, reachOf, stepReach } from './pod-files.js';
import { stagePod, volumeName, type PodNames } from './pod-spec.js';

const PIPELINE = `
kind: pipeline
type: kubernetes
name: ci
volumes:
- name: shared
  temp: {}
steps:
- name: deps
  image: node
  commands: [npm ci]
  volumes: [{ name: shared, path: /shared }]
  cache:
    key: deps
    paths: [node_modules, /root/.npm, /root/.npm/_cacache, /shared/pkg, /drone/src/vendor, /opt/tool, /run/drone/x]
- name: build
  image: node
  commands: [npm run build]
  artifacts: { paths: [dist/**] }
`;

const NAMES: PodNames = {
  pod: 'svc-run1',
  namespace: 'ci',
  secret: 'svc-run1',
  pullSecret: undefined,
  placeholder: 'svc/placeholder',
  filesImage: 'svc/git',
  labels: {},
};

describe('the files container of a stage pod (caches and artifacts)', () => {
  it('is added only when a step moves files, with every shared volume under /svc-files', async () => {
    const { spec } = await compileYaml(PIPELINE);
    expect(movesFiles(spec)).toBe(true);
    expect(movesFiles({ ...spec, steps: spec.steps.map(({ cache: _c, artifacts: _a, ...s }) => s) })).toBe(
      false,
    );
    const pod = stagePod(spec, NAMES, {});
    const files = pod.spec?.containers.find((c) => c.name === FILES_CONTAINER);
    expect(files).toMatchObject({ image: 'svc/git', imagePullPolicy: 'IfNotPresent' });
    expect(files?.command?.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(files?.volumeMounts).toEqual([
      { name: 'svc-workspace', mountPath: '/svc-files/w' },
      { name: 'v-shared', mountPath: '/svc-files/v/v-shared' },
      { name: 'svc-cache-2-0', mountPath: '/svc-files/c/svc-cache-2-0' },
      { name: 'svc-cache-2-1', mountPath: '/svc-files/c/svc-cache-2-1' },
    ]);
    // Absolute cache paths outside the workspace and the step's volumes get a volume each, mounted
    // in the step; a path under another one's is held by it.
    const deps = pod.spec?.containers.find((c) => c.name === 's2-deps');
    expect(deps?.volumeMounts?.filter((m) => m.name.startsWith('svc-cache'))).toEqual([
      { name: 'svc-cache-2-0', mountPath: '/root/.npm' },
      { name: 'svc-cache-2-1', mountPath: '/opt/tool' },
    ]);
    expect(pod.spec?.volumes?.filter((v) => v.name.startsWith('svc-cache'))).toEqual([
      { name: 'svc-cache-2-0', emptyDir: {} },
      { name: 'svc-cache-2-1', emptyDir: {} },
    ]);
    expect(stagePod(spec, { ...NAMES, filesImage: undefined }, {}).spec?.containers).toHaveLength(3);
  });

  it('moves a step’s paths to the files container’s, and reaches nothing else', async () => {
    const { spec } = await compileYaml(PIPELINE);
    const step = spec.steps.find((s) => s.name === 'deps');
    if (step === undefined) throw new Error('no deps step');
    const reach = stepReach(spec, step, volumeName);
    const at = (path: string) => reachOf(reach, path)?.path;
    // The workspace volume is mounted at the workspace base, /drone/src in a kubernetes pipeline.
    expect(spec.workspace.base).toBe('/drone/src');
    expect(at('/drone/src/node_modules/x')).toBe('/svc-files/w/node_modules/x');
    expect(at('/drone/src')).toBe('/svc-files/w');
    expect(at('/drone')).toBeUndefined();
    expect(at('/shared/pkg/')).toBe('/svc-files/v/v-shared/pkg');
    expect(at('/root/.npm/_cacache/index')).toBe('/svc-files/c/svc-cache-2-0/_cacache/index');
    expect(at('/opt/tool')).toBe('/svc-files/c/svc-cache-2-1');
    expect(at('/optional')).toBeUndefined();
    // The status file's folder is the pod's (a second mount there would make the pod invalid).
    expect(at('/run/drone/x')).toBeUndefined();
    expect(at('/etc/passwd')).toBeUndefined();
    expect(at('/drone/../etc')).toBeUndefined();
  });
});
