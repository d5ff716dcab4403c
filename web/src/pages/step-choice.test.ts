import { describe, expect, it } from 'vitest';
import type { Stage, Step } from '../wire.js';
import { chosenStep, stepHref } from './step-choice.js';

const step = (number: number, status: string, started = 100): Step => ({
  number,
  name: `s${number}`,
  status,
  exit_code: 0,
  error: '',
  started: status === 'pending' || status === 'skipped' ? 0 : started,
  stopped: 0,
});
const stage = (number: number, steps: Step[]): Stage =>
  ({ number, name: `stage-${number}`, status: 'running', steps }) as unknown as Stage;

describe('the step whose log the build page shows', () => {
  const red = [
    stage(1, [step(1, 'success'), step(2, 'success')]),
    stage(2, [step(1, 'success'), step(2, 'failure'), step(3, 'skipped')]),
  ];

  it('is the one the address names, when the build has it', () => {
    expect(chosenStep(red, '?step=1.2')).toEqual({ stage: 1, step: 2 });
    expect(chosenStep(red, '?tab=pipeline&step=2.1')).toEqual({ stage: 2, step: 1 });
  });

  it('is the first failed step otherwise, also for a step the build does not have', () => {
    expect(chosenStep(red, '')).toEqual({ stage: 2, step: 2 });
    expect(chosenStep(red, '?step=9.1')).toEqual({ stage: 2, step: 2 });
    expect(chosenStep(red, '?step=1.1x')).toEqual({ stage: 2, step: 2 });
  });

  it('is the running step of a build that has not failed, else the last that ran, else none', () => {
    const running = [stage(1, [step(1, 'success'), step(2, 'running'), step(3, 'pending')])];
    expect(chosenStep(running, '')).toEqual({ stage: 1, step: 2 });
    const green = [stage(1, [step(1, 'success')]), stage(2, [step(1, 'success'), step(2, 'skipped')])];
    expect(chosenStep(green, '')).toEqual({ stage: 2, step: 1 });
    expect(chosenStep([stage(1, [step(1, 'pending')])], '')).toBeUndefined();
    expect(chosenStep([], '?step=1.1')).toBeUndefined();
  });

  it('is named in the address as stage.step', () => {
    expect(stepHref('/octocat/app/12', { stage: 2, step: 3 })).toBe('/octocat/app/12?step=2.3');
  });
});
