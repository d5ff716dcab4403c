import { describe, expect, it } from 'vitest';
import { lintText } from '../lint/lint.js';
import { parseManifest } from '../parse.js';
import type { Pipeline } from '../types.js';

function pipelineOf(text: string): Pipeline {
  return parseManifest(text).manifest.documents[0] as Pipeline;
}

/** The diagnostics of a file as `line:column severity field: message`. */
function lint(text: string): string[] {
  return lintText(text, { trusted: false }).diagnostics.map(
    (d) => `${d.line}:${d.column} ${d.severity} ${d.field}: ${d.message}`,
  );
}

/** A pipeline whose one step has `fields` (YAML lines, indented under the step). */
function withStep(...fields: string[]): string {
  return [
    'kind: pipeline',
    'name: default',
    'steps:',
    '- name: test',
    '  image: alpine',
    '  commands: [make test]',
  ]
    .concat(fields.map((line) => `  ${line}`))
    .join('\n');
}

describe('retry: and timeout: reading', () => {
  it('reads max and when (exit codes and infrastructure), a bare count, and a duration', () => {
    const step = pipelineOf(withStep('retry: {max: 2, when: [137, infrastructure]}', 'timeout: 10m'))
      .steps[0];
    expect(step?.retry).toMatchObject({ max: 2, exitCodes: [137], anyExit: false, infrastructure: true });
    expect(step?.timeout).toBe(600_000);
    const bare = pipelineOf(withStep('retry: 3')).steps[0];
    expect(bare?.retry).toMatchObject({ max: 3, exitCodes: [], anyExit: true, infrastructure: true });
    expect(bare?.timeout).toBe(0);
    const any = pipelineOf(withStep('retry:', '    max: 1')).steps[0];
    expect(any?.retry).toMatchObject({ max: 1, anyExit: true, infrastructure: true });
    expect(pipelineOf(withStep('retry: {max: 1, when: infrastructure}')).steps[0]?.retry).toMatchObject({
      exitCodes: [],
      anyExit: false,
      infrastructure: true,
    });
  });

  it('says where and what is wrong: a count out of 1–5, an unknown when, a duration without a unit', () => {
    expect(lint(withStep('retry: 9'))).toEqual([
      '7:10 error steps[0].retry: expected the number of retries after a failed attempt, 1 to 5, found the number 9',
    ]);
    expect(lint(withStep('retry: {max: 2, when: [137, flaky, 0]}'))).toEqual([
      '7:31 error steps[0].retry.when[1]: expected exit codes (1 to 255) and/or infrastructure (the image could not be pulled, the container was killed for memory, the engine failed), e.g. when: [137, infrastructure], found the string "flaky"',
      '7:38 error steps[0].retry.when[2]: expected exit codes (1 to 255) and/or infrastructure (the image could not be pulled, the container was killed for memory, the engine failed), e.g. when: [137, infrastructure], found the number 0',
    ]);
    expect(lint(withStep('retry: {when: [1]}'))[0]).toMatch(
      /^7:10 error steps\[0\]\.retry\.max: is required/,
    );
    expect(lint(withStep('retry: {max: 1, times: 2}'))[0]).toMatch(/unknown field "times"/);
    expect(lint(withStep('timeout: 10'))).toEqual([
      '7:12 error steps[0].timeout: expected a duration with the units h, m, s or ms, e.g. 10m, 90s or 1h30m, found the number 10 (a number alone has no unit: 10m?)',
    ]);
    expect(lint(withStep('timeout: 48h'))[0]).toMatch(/48h is out of range; expected 1s to 24h/);
  });

  it('refuses both on services and detached steps, which have no end of their own', () => {
    const text = [
      'kind: pipeline',
      'name: default',
      'services:',
      '- name: db',
      '  image: postgres',
      '  retry: 2',
      'steps:',
      '- name: server',
      '  image: alpine',
      '  detach: true',
      '  timeout: 5m',
    ].join('\n');
    const messages = lint(text);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/^6:3 error services\[0\]\.retry: a service runs in the background/);
    expect(messages[1]).toMatch(/^11:3 error steps\[0\]\.timeout: a detached step \(detach: true\)/);
  });

  it('leaves a Drone file without them as it was', () => {
    const step = pipelineOf(withStep()).steps[0];
    expect(step?.retry).toBeUndefined();
    expect(step?.timeout).toBe(0);
    expect(lint(withStep())).toEqual([]);
  });
});
