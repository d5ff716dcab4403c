import { describe, expect, it } from 'vitest';
import { normalizeImage, sameImage, stepState, unschedulable, type KubePod } from './pod-state.js';

function pod(
  status: Record<string, unknown>,
  restartCount = 1,
  image = 'docker.io/library/alpine:3',
): KubePod {
  return { status: { containerStatuses: [{ name: 's2-test', image, restartCount, state: status }] } };
}

describe('a step’s container, as the pod status tells it', () => {
  it('names images as the kubelet reports them', () => {
    expect(normalizeImage('alpine')).toBe('docker.io/library/alpine:latest');
    expect(normalizeImage('local/busybox')).toBe('docker.io/local/busybox:latest');
    expect(normalizeImage('registry.local:5000/team/app:1')).toBe('registry.local:5000/team/app:1');
    expect(normalizeImage('alpine@sha256:abc')).toBe('docker.io/library/alpine@sha256:abc');
    expect(sameImage('alpine:3', 'docker.io/library/alpine:3')).toBe(true);
    expect(sameImage('alpine:3', 'svc/placeholder')).toBe(false);
  });

  it('waits while the placeholder runs or ends, runs and exits with the step’s image', () => {
    const placeholder = 'docker.io/svc/placeholder:latest';
    expect(stepState(pod({ running: {} }, 0, placeholder), 's2-test', 'alpine:3').kind).toBe('waiting');
    expect(stepState(pod({ terminated: { exitCode: 0 } }, 0, placeholder), 's2-test', 'alpine:3')).toEqual({
      kind: 'placeholder-ended',
      reason: 'Terminated',
      message: 'exit code 0',
    });
    expect(stepState(pod({ running: {} }), 's2-test', 'alpine:3')).toEqual({ kind: 'running' });
    expect(stepState(pod({ terminated: { exitCode: 3, reason: 'Error' } }), 's2-test', 'alpine:3')).toEqual({
      kind: 'exited',
      exitCode: 3,
      reason: 'Error',
    });
    expect(stepState({ status: {} }, 's2-test', 'alpine:3').kind).toBe('waiting');
  });

  it('tells pull trouble (retried) from failures that never resolve', () => {
    expect(
      stepState(pod({ waiting: { reason: 'ImagePullBackOff', message: 'Back-off' } }), 's2-test', 'alpine:3'),
    ).toEqual({
      kind: 'pulling-failed',
      reason: 'ImagePullBackOff',
      message: 'Back-off',
    });
    expect(
      stepState(
        pod({ waiting: { reason: 'ErrImageNeverPull', message: 'not present' } }),
        's2-test',
        'alpine:3',
      ).kind,
    ).toBe('failed');
    expect(stepState(pod({ waiting: { reason: 'ContainerCreating' } }), 's2-test', 'alpine:3').kind).toBe(
      'waiting',
    );
  });

  it('reads the scheduler’s message of an unschedulable pod', () => {
    const message = "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.";
    expect(
      unschedulable({
        status: { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }] },
      }),
    ).toBe(message);
    expect(
      unschedulable({ status: { conditions: [{ type: 'PodScheduled', status: 'True' }] } }),
    ).toBeUndefined();
  });
});
