export { SshEngine, type SshEngineOptions } from './engine.js';
export { HostKeys, fingerprint } from './host-keys.js';
export { parseAddress, type SshTarget } from './target.js';
