/** The git provider webhook endpoint (POST /hook). */
export { hookRoute, type HookDeps } from './hook-route.js';
