// The GitHub double keeps its data in the state every forge double shares.
export * from '../forge/state.js';
export { ForgeState as GitHubState } from '../forge/state.js';
