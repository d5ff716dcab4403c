/*
 * retry: on the Kubernetes engine, against the API double running pods on the real Docker engine:
 * a pod's containers run once, so each further attempt has a container planned with the pod, and
 * a step that exits 137 once succeeds in its second, over the same workspace.
 */
import { describe, expect, it } from 'vitest';
import { busyboxShell, execSpec } from '../../runner/testing/spec.js';
import { dockerForTests } from '../docker/testing.case.js';
import { withAttempts } from './attempts.js';
import { useKubeStages } from './files.case.js';

const { skip } = await dockerForTests(['local/busybox', 'svc/placeholder']);

const FLAKY =
  'if [ -f tried ]; then echo second attempt; exit 0; fi; touch tried; echo first attempt; exit 137';

describe('withAttempts', () => {
  it('plans a container for each further attempt, after the steps, with its step’s resources', () => {
    const retry = { max: 2, exitCodes: [137], anyExit: false, infrastructure: false };
    const spec = execSpec([busyboxShell('a', 'true'), busyboxShell('b', 'true', { retry })]);
    const [a, b] = spec.steps;
    const limits = { requests: { cpu: 100, memory: 0 }, limits: { cpu: 500, memory: 0 } };
    const pod = { resources: { [b?.id ?? '']: limits } } as unknown as NonNullable<typeof spec.pod>;
    const planned = withAttempts({ ...spec, pod });
    expect(planned.steps.map((step) => step.id)).toEqual([
      a?.id,
      b?.id,
      `${b?.id}-attempt-2`,
      `${b?.id}-attempt-3`,
    ]);
    expect(planned.pod?.resources[`${b?.id}-attempt-3`]).toEqual(limits);
    expect(withAttempts(execSpec([busyboxShell('a', 'true')])).steps).toHaveLength(1);
  });
});

describe.skipIf(skip)('retry: on the Kubernetes engine', () => {
  const stages = useKubeStages();

  it('runs a step that exited 137 again in its attempt’s container, in the same workspace', async () => {
    const retry = { max: 2, exitCodes: [137], anyExit: false, infrastructure: false };
    const { result, lines } = await stages().run(
      execSpec([
        busyboxShell('flaky', FLAKY, { retry }),
        busyboxShell('next', 'ls tried', { dependsOn: ['flaky'] }),
      ]),
      {},
    );
    expect(result.status, JSON.stringify({ steps: result.steps, next: lines('next') })).toBe('success');
    expect(result.steps.find((step) => step.name === 'flaky')).toMatchObject({ attempts: 2, exitCode: 0 });
    expect(lines('flaky')).toEqual([
      'first attempt',
      'retry: attempt 1 of 3 failed (exit code 137); the step runs again',
      'second attempt',
    ]);
    expect(lines('next')).toEqual(['tried']);
  }, 120_000);
});
