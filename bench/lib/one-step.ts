/**
 * The pipeline file the benchmarks push: one step of `commands` on a local image, no clone, so that
 * what is measured is svc's own path and the step, not a git fetch.
 */
export function oneStepPipeline(commands: readonly string[], step = 'step', image = 'local/busybox'): string {
  return `kind: pipeline
type: docker
name: default
clone:
  disable: true
steps:
- name: ${step}
  image: ${image}
  pull: if-not-exists
  commands: [ ${commands.map((command) => JSON.stringify(command)).join(', ')} ]
`;
}
