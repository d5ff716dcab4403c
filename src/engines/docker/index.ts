/** The Docker execution backend: docs/runner-core.md. */
export { dockerClient, type DockerConnection } from './client.js';
export { DockerEngine, type DockerEngineOptions, type Leftovers } from './engine.js';
export { LABEL_OWNER, LABEL_RUN, LABEL_STEP } from './resources.js';
