import fc from 'fast-check';
import { InvalidSettingsError } from '../../../src/core/errors.js';
import { loadSettings, SETTINGS_KINDS } from '../../../src/config/index.js';
import { REQUIRED_ENV, SPEC_SETTINGS } from '../../fixtures/spec-settings.js';
import type { FuzzTarget } from '../target.js';

const NAMES = [...new Set(SPEC_SETTINGS.map((setting) => setting.name))];

/** Values of the shapes settings take, broken in the ways people break them. */
const value = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '',
    ' ',
    'true',
    'false',
    '0',
    '-1',
    '1e9',
    '10s',
    '1h30m',
    'x:y',
    'a,b',
    'http://x',
    ':8080',
    '[::1]:80',
  ),
  fc.integer().map(String),
  fc.array(fc.string(), { maxLength: 4 }).map((parts) => parts.join(',')),
);

export const settingsTarget: FuzzTarget = {
  name: 'settings',
  promise: 'any SVC_* environment is loaded, or refused with problems that each name a setting and say why',
  property: () =>
    fc.property(
      fc.constantFrom(...SETTINGS_KINDS),
      fc.dictionary(
        fc.oneof(
          fc.constantFrom(...NAMES),
          fc.string().map((s) => `SVC_${s}`),
        ),
        value,
        {
          maxKeys: 8,
        },
      ),
      (kind, extra) => {
        try {
          loadSettings(kind, { ...REQUIRED_ENV[kind], ...extra }, { cwd: '/' });
        } catch (error) {
          if (!(error instanceof InvalidSettingsError)) throw error;
          for (const problem of error.problems) {
            if (!problem.setting.startsWith('SVC_') || problem.message.trim() === '') {
              throw new Error(`a problem without a setting or a message: ${JSON.stringify(problem)}`);
            }
          }
        }
      },
    ),
};
