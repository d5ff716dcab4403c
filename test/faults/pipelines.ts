/**
 * The pipeline of the fault tests: one stage, no clone (the steps need only the runner and the
 * engine, not a repository), one busybox step `work` running `commands`.
 */
export function workPipeline(
  commands: readonly string[],
  options: { name?: string; dependsOn?: string } = {},
): string {
  const dependsOn = options.dependsOn === undefined ? '' : `depends_on: [${options.dependsOn}]\n`;
  return `kind: pipeline
type: docker
name: ${options.name ?? 'default'}
clone:
  disable: true
${dependsOn}steps:
- name: work
  image: local/busybox
  pull: if-not-exists
  commands:
${commands.map((command) => `  - ${command}`).join('\n')}
`;
}
