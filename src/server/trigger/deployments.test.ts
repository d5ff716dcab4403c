import { describe, expect, it } from 'vitest';
import type { Environment } from '../../core/environment.js';
import { parseManifest } from '../../pipeline/index.js';
import { planDeployments } from './deployments.js';
import { selectPipelines } from './select.js';

const FILE = `kind: pipeline
name: build
steps: [{name: b, image: busybox}]
---
kind: pipeline
name: ship
environment: production
depends_on: [build]
steps: [{name: s, image: busybox}]
---
kind: pipeline
name: preview
environment: preview
steps: [{name: p, image: busybox}]
`;

function selected() {
  const parsed = parseManifest(FILE);
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((d) => d.message).join('\n'));
  const pipelines = parsed.manifest.documents.flatMap((d) => (d.kind === 'pipeline' ? [d] : []));
  return selectPipelines(pipelines, {
    branch: 'main',
    event: 'push',
    ref: 'refs/heads/main',
    repo: 'acme/app',
    instance: 'ci',
    target: '',
    cron: '',
    action: '',
  });
}

const production: Environment = {
  id: 1,
  repoId: 1,
  name: 'production',
  approvers: { users: [], teams: [] },
  required: 2,
  branches: ['main'],
  timeout: 30,
  created: 0,
  updated: 0,
  version: 1,
};

const environments = (list: Environment[]) => ({ list: () => Promise.resolve(list) });

describe('planDeployments', () => {
  it('gives a declared environment its approvals and deadline; one the repository does not define runs at once', async () => {
    const plan = await planDeployments(
      environments([production]),
      { id: 1 },
      { event: 'push', deployTo: '', target: 'main', source: 'main' },
      selected(),
      1_000,
    );
    expect(plan).toEqual({
      ok: true,
      deployments: [
        undefined,
        { environment: 'production', required: 2, approved: false, deadline: 1_000 + 30 * 60_000 },
        { environment: 'preview', required: 0, approved: true, deadline: 0 },
      ],
    });
  });

  it('makes every stage of a promotion to a defined environment deploy there; an undefined target protects nothing', async () => {
    const promote = { event: 'promote', deployTo: 'production', target: 'main', source: 'main' } as const;
    const plan = await planDeployments(environments([production]), { id: 1 }, promote, selected(), 0);
    expect(plan.ok && plan.deployments.map((d) => d?.environment)).toEqual([
      'production',
      'production',
      'preview',
    ]);
    const elsewhere = await planDeployments(
      environments([]),
      { id: 1 },
      { ...promote, deployTo: 'qa' },
      selected(),
      0,
    );
    expect(elsewhere.ok && elsewhere.deployments.map((d) => d?.environment)).toEqual([
      undefined,
      'production',
      'preview',
    ]);
  });

  it('refuses a branch the environment does not take, naming pipeline, branch and rule', async () => {
    const plan = await planDeployments(
      environments([production]),
      { id: 1 },
      { event: 'push', deployTo: '', target: 'feature/x', source: 'feature/x' },
      selected(),
      0,
    );
    expect(plan).toEqual({
      ok: false,
      error:
        'pipeline "ship" may not deploy to production from branch feature/x: production takes only main (repository settings, Environments)',
    });
  });

  it('judges a pull request by its own branch, not the branch it targets', async () => {
    const plan = await planDeployments(
      environments([production]),
      { id: 1 },
      { event: 'pull_request', deployTo: '', target: 'main', source: 'feature/x' },
      selected(),
      0,
    );
    expect(plan).toMatchObject({
      ok: false,
      error: expect.stringContaining('from branch feature/x') as unknown,
    });
  });
});
