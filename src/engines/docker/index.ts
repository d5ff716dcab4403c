/** The Docker execution backend: docs/runner-core.md. */
export { dockerClient, DockerClient, type DockerConnection } from './client.js';
export { DockerApiError } from './api/errors.js';
export { DockerEngine, type DockerEngineOptions, type Leftovers } from './engine.js';
export { LABEL_OWNER, LABEL_RUN, LABEL_STEP } from './resources.js';
