import { describe, expect, it } from 'vitest';
import { allocation, evaluation } from './api.js';
import { allocationFailure, placementFailure } from './outcome.js';

function alloc(fields: Record<string, unknown>) {
  return allocation.parse({
    ID: '5a1f0c3e-aaaa-bbbb-cccc-000000000000',
    JobID: 'svc-stage-1-x',
    NodeName: 'worker-3',
    DesiredStatus: 'run',
    ClientStatus: 'failed',
    ...fields,
  });
}

describe('why a stage’s allocation failed', () => {
  it('names a lost allocation’s node and Nomad’s description', () => {
    const lost = alloc({
      ClientStatus: 'lost',
      DesiredStatus: 'stop',
      DesiredDescription: 'alloc is lost since its node is down',
      ClientDescription: 'Tasks are running',
    });
    expect(allocationFailure(lost, 'stage', '')).toBe(
      'Nomad allocation 5a1f0c3e on node worker-3 was lost: alloc is lost since its node is down',
    );
  });

  it('gives a driver failure’s message', () => {
    const failed = alloc({
      TaskStates: {
        stage: {
          State: 'dead',
          Failed: true,
          Events: [
            { Type: 'Received', Details: {} },
            { Type: 'Driver Failure', DriverError: 'Failed to pull `svc/svc:9`: not found', Details: null },
            { Type: 'Not Restarting', Details: {} },
          ],
        },
      },
    });
    expect(allocationFailure(failed, 'stage', '')).toBe(
      'Nomad allocation 5a1f0c3e on node worker-3: Driver Failure: Failed to pull `svc/svc:9`: not found',
    );
  });

  it('gives a task’s exit code (Details.exit_code first) and the end of its error output', () => {
    const exited = alloc({
      TaskStates: {
        stage: {
          State: 'dead',
          Failed: true,
          Events: [{ Type: 'Terminated', ExitCode: 0, Details: { exit_code: '2' } }],
        },
      },
    });
    const stderr = Array.from({ length: 15 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const text = allocationFailure(exited, 'stage', stderr);
    expect(text).toMatch(
      /^Nomad allocation 5a1f0c3e on node worker-3: the stage's task exited with code 2; its last output:\nline 6\n/,
    );
    expect(text.endsWith('line 15')).toBe(true);
  });

  it('falls back to the allocation’s description', () => {
    expect(allocationFailure(alloc({ ClientDescription: 'Failed tasks' }), 'stage', '')).toBe(
      'Nomad allocation 5a1f0c3e on node worker-3: Failed tasks',
    );
  });
});

describe('why Nomad could not place a job', () => {
  it('reads the last evaluation with FailedTGAllocs', () => {
    const evaluations = [
      evaluation.parse({ ID: 'e1', Status: 'complete', FailedTGAllocs: null }),
      evaluation.parse({
        ID: 'e2',
        Status: 'complete',
        FailedTGAllocs: {
          stage: {
            NodesEvaluated: 3,
            NodesFiltered: 3,
            ConstraintFiltered: { '${attr.cpu.arch} = arm64': 3 },
            DimensionExhausted: null,
          },
        },
      }),
    ];
    expect(placementFailure(evaluations)).toBe('constraint ${attr.cpu.arch} = arm64 filtered 3 nodes');
  });

  it('says when no node is in the datacenters, and when nothing failed', () => {
    const none = evaluation.parse({
      ID: 'e',
      Status: 'blocked',
      FailedTGAllocs: { stage: { NodesEvaluated: 0, NodesAvailable: { dc2: 0 } } },
    });
    expect(placementFailure([none])).toBe('no ready node in the datacenters dc2');
    expect(placementFailure([evaluation.parse({ ID: 'e', Status: 'complete' })])).toBeUndefined();
  });

  it('counts exhausted dimensions', () => {
    const full = evaluation.parse({
      ID: 'e',
      Status: 'blocked',
      FailedTGAllocs: { stage: { NodesEvaluated: 2, NodesExhausted: 2, DimensionExhausted: { memory: 2 } } },
    });
    expect(placementFailure([full])).toBe('memory exhausted on 2 nodes');
  });
});
