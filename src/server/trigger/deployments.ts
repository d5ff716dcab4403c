import type { NewBuild } from '../../core/build.js';
import type { EnvironmentStore, StageDeployment } from '../../core/environment.js';
import type { Repo } from '../../core/repo.js';
import { globMatch } from '../../pipeline/index.js';
import type { SelectedPipeline } from './select.js';

/** What each selected pipeline deploys to (undefined: nowhere), or why the build cannot deploy. */
export type DeploymentPlan =
  { ok: true; deployments: (StageDeployment | undefined)[] } | { ok: false; error: string };

/**
 * The environment each selected pipeline deploys to: the one it declares (`environment: name`),
 * else a promotion's target (DRONE_DEPLOY_TO) when the repository defines an environment of that
 * name. A defined environment sets the approvals the stage waits for (counted from `now` to its
 * timeout) and the branches that may deploy there: a build of another branch is refused as a whole,
 * naming the rule, rather than leaving a deployment out unnoticed. An environment the repository does
 * not define protects nothing: its stage runs at once and gets the secrets bound to that name.
 */
export async function planDeployments(
  environments: Pick<EnvironmentStore, 'list'>,
  repo: Pick<Repo, 'id'>,
  build: Pick<NewBuild, 'event' | 'deployTo' | 'target' | 'source'>,
  selected: readonly SelectedPipeline[],
  now: number,
): Promise<DeploymentPlan> {
  const named = selected.map(({ pipeline }) =>
    pipeline.deployment !== '' ? pipeline.deployment : build.event === 'promote' ? build.deployTo : '',
  );
  if (named.every((name) => name === '')) return { ok: true, deployments: named.map(() => undefined) };
  const defined = new Map((await environments.list(repo.id)).map((env) => [env.name, env]));
  const deployments: (StageDeployment | undefined)[] = [];
  for (const [index, name] of named.entries()) {
    const environment = defined.get(name);
    const declared = selected[index]?.pipeline.deployment !== '';
    if (name === '' || (environment === undefined && !declared)) {
      deployments.push(undefined);
      continue;
    }
    if (environment === undefined) {
      deployments.push({ environment: name, required: 0, approved: true, deadline: 0 });
      continue;
    }
    const branches = environment.branches;
    const branch = deployingBranch(build);
    if (branches.length > 0 && !branches.some((glob) => globMatch(glob, branch))) {
      const pipeline = selected[index]?.pipeline.name ?? '';
      return {
        ok: false,
        error: `pipeline "${pipeline}" may not deploy to ${name} from branch ${branch}: ${name} takes only ${branches.join(', ')} (repository settings, Environments)`,
      };
    }
    const waits = environment.required > 0;
    deployments.push({
      environment: name,
      required: environment.required,
      approved: !waits,
      deadline: waits ? now + environment.timeout * 60_000 : 0,
    });
  }
  return { ok: true, deployments };
}

/**
 * The branch whose code a build deploys: a pull request's own branch, not the one it targets (its
 * DRONE_BRANCH) — a pull request into main runs the pull request's code, which main's rule is not
 * about (as GitHub's deployment branch rules see a pull request's merge ref, not main).
 */
function deployingBranch(build: Pick<NewBuild, 'event' | 'target' | 'source'>): string {
  return build.event === 'pull_request' ? build.source : build.target;
}
