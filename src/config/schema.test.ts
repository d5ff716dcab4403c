import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ADDITIONS_SPEC,
  createPlaceholderFiles,
  fillPlaceholders,
  REQUIRED_ENV,
  SPEC_SETTINGS,
  type SpecSetting,
} from '../../test/fixtures/spec-settings.js';
import { InvalidSettingsError, type SettingProblem } from '../core/errors.js';
import { SETTINGS_KINDS, type SettingsKind } from './kinds.js';
import { loadSettings } from './load.js';
import { printableSettings } from './print.js';
import { SCHEMA, settingsFor } from './schema/index.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-schema-test-'));
const files = createPlaceholderFiles(dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function specFor(kind: SettingsKind): SpecSetting[] {
  return SPEC_SETTINGS.filter((spec) => spec.kinds.includes(kind));
}

function printed(kind: SettingsKind, env: Record<string, string>): Record<string, unknown> {
  const { settings } = loadSettings(kind, env, { cwd: dir });
  return printableSettings(kind, settings);
}

function problemsOf(kind: SettingsKind, env: Record<string, string>): SettingProblem[] {
  try {
    loadSettings(kind, env, { cwd: dir });
  } catch (error) {
    if (error instanceof InvalidSettingsError) return [...error.problems];
    throw error;
  }
  return [];
}

describe('the schema matches the spec tables', () => {
  it.each(SETTINGS_KINDS)('%s accepts exactly the spec settings of its kind, plus the additions', (kind) => {
    const schemaNames = settingsFor(kind).map((def) => def.name);
    const specNames = specFor(kind).map((spec) => spec.name);
    expect([...schemaNames].sort()).toEqual([...specNames].sort());
    expect(new Set(schemaNames).size).toBe(schemaNames.length);
  });

  it.each(SETTINGS_KINDS)('%s: type, required-ness and secrecy as the spec says', (kind) => {
    for (const def of settingsFor(kind)) {
      const spec = specFor(kind).find((each) => each.name === def.name);
      expect({ name: def.name, type: def.codec.type, required: def.required, secret: def.secret }).toEqual({
        name: def.name,
        type: spec?.type,
        required: spec?.required,
        secret: spec?.secret,
      });
    }
  });

  it('marks the additions, and only them, as svc additions', () => {
    const additions = [...new Set(SCHEMA.filter((def) => def.addition).map((def) => def.name))];
    expect(additions).toEqual(ADDITIONS_SPEC.map((spec) => spec.name));
  });
});

const cases = SETTINGS_KINDS.flatMap((kind) =>
  specFor(kind).map((spec) => ({ kind, spec, label: `${kind} ${spec.name}` })),
);

describe('every setting when unset', () => {
  it.each(cases)('$label: printed default, or a problem when required', ({ kind, spec }) => {
    const env: Record<string, string> = { ...REQUIRED_ENV[kind] };
    if (spec.required) {
      delete env[spec.name];
      const problems = problemsOf(kind, env);
      expect(problems.map((problem) => problem.setting)).toEqual([spec.name]);
      expect(problems[0]?.message).toMatch(/^is required but not set; expected /);
    } else {
      const expected =
        spec.defaultFor !== undefined && kind in spec.defaultFor ? spec.defaultFor[kind] : spec.default;
      expect(printed(kind, env)[spec.name]).toEqual(expected);
    }
  });
});

describe('every setting with a valid value', () => {
  it.each(cases)('$label: parsed and printed', ({ kind, spec }) => {
    const [raw, shown] = fillPlaceholders(spec.sample, files);
    const env = { ...REQUIRED_ENV[kind], ...fillPlaceholders(spec.with ?? {}, files), [spec.name]: raw };
    expect(printed(kind, env)[spec.name]).toEqual(shown);
  });
});

const invalidCases = cases.filter(({ spec }) => typeof spec.invalid === 'string');
const skipped = cases.filter(({ spec }) => typeof spec.invalid !== 'string');

describe('every setting with an invalid value', () => {
  it.each(invalidCases)('$label: refused with a problem naming it', ({ kind, spec }) => {
    const invalid = fillPlaceholders(spec.invalid as string, files);
    const env = { ...REQUIRED_ENV[kind], ...fillPlaceholders(spec.with ?? {}, files), [spec.name]: invalid };
    const problems = problemsOf(kind, env);
    expect(problems.map((problem) => problem.setting)).toEqual([spec.name]);
    const message = problems[0]?.message ?? '';
    expect(message).toContain('expected');
    // The message shows the value it got, except for secrets, which it must never repeat.
    if (spec.secret) expect(message).not.toContain(invalid);
    else expect(message).toContain(invalid);
  });

  it('skips only free-form settings, each with its reason', () => {
    for (const { spec } of skipped) {
      expect(['string', 'list']).toContain(spec.type);
      expect(spec.invalid).toEqual({ skip: expect.stringMatching(/^free (text|list): /) as unknown });
    }
  });
});
