import { describe, expect, it } from 'vitest';
import { substitutionLookup } from '../substitute.js';
import { lintSubstituted } from './lint.js';
import { cannotChangeStructure, FileReadings } from './structure.js';

/** A file read as a build of a commit whose message is `message` reads it. */
function build(raw: string, message: string, more: Record<string, string> = {}) {
  const result = lintSubstituted(raw, substitutionLookup({ DRONE_COMMIT_MESSAGE: message, ...more }), {
    trusted: true,
  });
  return {
    errors: result.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message),
    changed: result.diagnostics.find((d) => d.message.includes('change the structure')),
    steps: result.manifest.documents.flatMap((d) => (d.kind === 'pipeline' ? d.steps : [])),
  };
}

const FLOW = `kind: pipeline
type: docker
name: default
steps:
- {name: greet, image: alpine, commands: ["echo \${DRONE_COMMIT_MESSAGE}"]}
`;

describe('build variables cannot change a pipeline file’s structure', () => {
  it('refuses a commit message that adds a key to a step (privileged, through a flow mapping)', () => {
    const attack = build(FLOW, 'hi"], privileged: true, volumes: [], x: ["');
    expect(attack.changed).toMatchObject({ line: 5, severity: 'error' });
    expect(attack.changed?.message).toContain('steps[0]');
    // Without the check, the step would have run privileged: the value did rewrite the file.
    expect(attack.steps.some((step) => step.privileged === true)).toBe(true);
    expect(build(FLOW, 'an ordinary message').errors).toEqual([]);
  });

  it('refuses a value that turns a command into a mapping, and takes one that stays a string', () => {
    const block = `kind: pipeline
type: docker
name: default
steps:
- name: greet
  image: alpine
  commands:
  - echo \${DRONE_COMMIT_MESSAGE}
`;
    expect(build(block, 'fix: the thing').changed?.message).toContain('steps[0].commands[0]');
    expect(build(block, 'fix the thing').errors).toEqual([]);
    // A message of several lines is quoted onto one line (Drone's rule): as a whole value, one string.
    const whole = block.replace(
      '  commands:\n  - echo ${DRONE_COMMIT_MESSAGE}',
      '  environment:\n    MSG: ${DRONE_COMMIT_MESSAGE}\n  commands: [echo ok]',
    );
    expect(build(whole, 'first line\nsecond: line\n- third').errors).toEqual([]);
  });

  it('lets a key the author built from a variable be whatever the variable says', () => {
    const keyed = `kind: pipeline
type: docker
name: default
steps:
- name: greet
  image: alpine
  environment:
    \${PREFIX}_TOKEN: x
  commands: [echo ok]
`;
    expect(build(keyed, 'm', { PREFIX: 'DEPLOY' }).errors).toEqual([]);
  });

  it('reads a file without variables, or whose variables keep their place, as before', () => {
    const plain = FLOW.replace('${DRONE_COMMIT_MESSAGE}', 'hello');
    expect(build(plain, 'x, y: z').errors).toEqual([]);
    expect(
      build(FLOW.replace('${DRONE_COMMIT_MESSAGE}', '${DRONE_COMMIT_MESSAGE:0:3}'), 'abc').errors,
    ).toEqual([]);
  });
});

describe('the structure check’s shortcuts', () => {
  it('takes only words of letters, digits and . _ / + @ = - as harmless: the rest is read twice', () => {
    for (const value of ['0f3c9a1e', 'main', 'release/1.2', 'v1.2.3+build', 'a@b', 'x=y', 'feature-x_2'])
      expect(cannotChangeStructure(value), value).toBe(true);
    for (const value of [
      '',
      '-x',
      '.hidden',
      'a b',
      'a:b',
      'a#b',
      'a,b',
      'a]',
      '{a',
      '"a"',
      "'a'",
      'a\nb',
      '*a',
      '&a',
      '!a',
      '|',
      '>',
    ])
      expect(cannotChangeStructure(value), JSON.stringify(value)).toBe(false);
  });

  it('refuses an attack through an empty value, and with the readings of earlier builds kept', () => {
    const raw = `kind: pipeline\nname: default\nsteps:\n- {name: a, image: alpine, commands: [\${X}]}\n`;
    const readings = new FileReadings();
    const lint = (x: string) =>
      lintSubstituted(raw, substitutionLookup({ X: x }), { trusted: true, readings }).diagnostics.find((d) =>
        d.message.includes('change the structure'),
      );
    expect(lint('abc')).toBeUndefined();
    expect(lint('')).toMatchObject({ severity: 'error' });
    expect(lint('a, b')).toMatchObject({ severity: 'error' });
    expect(lint('abc')).toBeUndefined();
  });
});
