/** Live log fan-out within one server process. */
export { InMemoryLiveLogs } from './live-logs.js';
