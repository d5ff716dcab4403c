// Writes docs/settings.md from the settings schema; src/config/docs.test.ts fails when it is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderSettingsDoc } from '../src/config/docs.js';

const target = fileURLToPath(new URL('../docs/settings.md', import.meta.url));
writeFileSync(target, renderSettingsDoc());
process.stdout.write(`wrote ${target}\n`);
