export { SshEngine, type SshEngineOptions } from './engine.js';
export { HostKeys, fingerprint, runnerHostKeys } from './host-keys.js';
export { parseAddress, targetOf, type SshTarget } from './target.js';
