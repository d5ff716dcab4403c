// Writes docs/settings.md from the settings schema and from a scan of the test files naming each setting.
// src/config/docs.test.ts renders the same and fails when the file differs, so the doc goes stale both when
// the schema changes and when a test starts or stops naming a setting: run `npm run docs:settings` again.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderSettingsDoc } from '../src/config/docs.js';
import { scanTests } from '../src/config/docs-tests.js';
import { SPEC_SETTINGS } from '../test/fixtures/spec-settings.js';

const target = fileURLToPath(new URL('../docs/settings.md', import.meta.url));
writeFileSync(target, renderSettingsDoc(scanTests(SPEC_SETTINGS.map((spec) => spec.name))));
process.stdout.write(`wrote ${target}\n`);
