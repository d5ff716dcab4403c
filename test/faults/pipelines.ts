import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';

/**
 * The pipeline of the fault tests: one stage, no clone (the steps need only the runner and the
 * engine, not a repository), one busybox step `work` running `commands`.
 */
export function workPipeline(
  commands: readonly string[],
  options: { name?: string; dependsOn?: string; events?: readonly string[] } = {},
): string {
  const dependsOn = options.dependsOn === undefined ? '' : `depends_on: [${options.dependsOn}]\n`;
  const trigger = options.events === undefined ? '' : `trigger:\n  event: [${options.events.join(', ')}]\n`;
  return `kind: pipeline
type: docker
name: ${options.name ?? 'default'}
clone:
  disable: true
${dependsOn}${trigger}steps:
- name: work
  image: local/busybox
  pull: if-not-exists
  commands:
${commands.map((command) => `  - ${command}`).join('\n')}
`;
}

/**
 * The GitHub double with the user `octocat` and the repository `octocat/app`, whose clone URL goes
 * nowhere: the fault tests' pipelines do not clone.
 */
export async function appDouble(): Promise<GitHubDouble> {
  const github = await startGitHubDouble({ enterprise: true });
  github.addUser({ login: 'octocat', email: 'octocat@example.com' });
  github.addRepo({
    owner: 'octocat',
    name: 'app',
    admins: ['octocat'],
    cloneUrl: 'https://git.invalid/octocat/app.git',
  });
  return github;
}
