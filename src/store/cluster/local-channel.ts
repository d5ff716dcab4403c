import type { ClusterChannel } from '../../core/cluster.js';

/**
 * The channel of a database only one server uses (SQLite, which svc claims for one server): there
 * is nobody to tell, so signals go nowhere and nothing is ever heard.
 */
export class LocalChannel implements ClusterChannel {
  readonly shared = false;
  readonly carriesLogs = true;

  send(): void {
    // One server: its own parts were told directly.
  }

  listen(): () => void {
    return () => undefined;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
