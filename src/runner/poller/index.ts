/** The runner's polling loops: ask the server for stages, run them, stop in order. */
export { Poller, type PollerOptions, type StopOptions } from './poller.js';
