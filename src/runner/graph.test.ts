import { describe, expect, it } from 'vitest';
import { graphProblem } from './graph.js';
import { execStep } from './testing/spec.js';

describe('graphProblem', () => {
  it('accepts a DAG, including diamonds', () => {
    const steps = [
      execStep('a'),
      execStep('b', { dependsOn: ['a'] }),
      execStep('c', { dependsOn: ['a'] }),
      execStep('d', { dependsOn: ['b', 'c'] }),
    ];
    expect(graphProblem(steps)).toBeUndefined();
  });

  it('names a missing dependency, a self-dependency and a duplicate name', () => {
    expect(graphProblem([execStep('a', { dependsOn: ['x'] })])).toBe(
      'step "a" depends on "x", which does not exist',
    );
    expect(graphProblem([execStep('a', { dependsOn: ['a'] })])).toBe('step "a" depends on itself');
    expect(graphProblem([execStep('a'), execStep('a')])).toBe('two steps are named "a"');
  });

  it('shows the steps of a cycle', () => {
    const steps = [
      execStep('a', { dependsOn: ['c'] }),
      execStep('b', { dependsOn: ['a'] }),
      execStep('c', { dependsOn: ['b'] }),
    ];
    expect(graphProblem(steps)).toBe('the steps depend on each other in a cycle: a → b → c → a');
  });
});
