/**
 * Every SVC_* name in deploy/ and in docs/install.md, comments included, is a setting of svc
 * (src/config/schema), so that no deployment file or page teaches a name svc would ignore.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kindsAccepting } from '../../src/config/schema/index.js';
import { deployFiles, ROOT } from './files.js';

const files = [...deployFiles(), 'docs/install.md'];
const namesIn = (file: string): Set<string> =>
  new Set(readFileSync(join(ROOT, file), 'utf8').match(/\bSVC_[A-Z0-9_]+\b/g) ?? []);

describe('setting names in deploy files', () => {
  it('finds the deploy files and the names in them', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'deploy/compose/compose.yaml',
        'deploy/kubernetes/server.yaml',
        'deploy/systemd/svc-server.service',
      ]),
    );
    expect(namesIn('deploy/kubernetes/server.yaml')).toContain('SVC_RPC_SECRET');
  });

  it.each(files)('%s names only settings svc has', (file) => {
    const unknown = [...namesIn(file)].filter((name) => kindsAccepting(name).length === 0);
    expect(unknown).toEqual([]);
  });
});
