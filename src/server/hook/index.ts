/** The git provider webhook endpoint (POST /hook), and the pruning of the deliveries it took. */
export { hookRoute, type HookDeps } from './hook-route.js';
export { DeliveryPruner, DELIVERY_RETENTION_MS, type DeliveryPrunerDeps } from './delivery-pruner.js';
