import type { Logger } from 'pino';
import type { ServerSettings } from '../../config/index.js';
import type { BuildListener } from '../../core/events.js';
import type { GaugeRegistry } from '../../core/gauges.js';
import type { ScmProvider } from '../../core/scm.js';
import type { Store } from '../../core/store.js';
import { InsightRollup } from '../../server/insights/rollup.js';
import { CommitStatusReporter, type StatusPoster } from '../../server/status/index.js';

/**
 * The API's event streams, commit statuses at the git provider (unless SVC_STATUS_DISABLED), the
 * insight rollups and global webhooks; a listener never breaks a build.
 */
export function buildListener(
  settings: ServerSettings,
  store: Store,
  provider: ScmProvider | undefined,
  address: { proto: 'http' | 'https'; host: string },
  logger: Logger,
  webhooks: BuildListener | undefined,
  streams: BuildListener,
  cluster: BuildListener | undefined,
  gauges: GaugeRegistry,
  poster?: StatusPoster,
): BuildListener {
  // The streams first: they only hand the change to open connections, while the others call out.
  const listeners: { name: string; listener: BuildListener }[] = [
    { name: 'sending it to event streams', listener: streams },
  ];
  if (cluster !== undefined) listeners.push({ name: 'telling the other servers', listener: cluster });
  if (provider !== undefined && !provider.reportsStatus && !settings.SVC_STATUS_DISABLED) {
    // Said once, at start: every build would otherwise be a failed report.
    logger.info(
      `commit statuses: the git provider (${provider.name}) has no commit status API, so builds are not reported to it`,
    );
  }
  if (provider?.reportsStatus === true) {
    const statuses = new CommitStatusReporter({
      provider,
      users: store.users,
      tests: store.testReports,
      ...(poster === undefined ? {} : { poster }),
      status: { disabled: settings.SVC_STATUS_DISABLED, name: settings.SVC_STATUS_NAME },
      address,
      logger,
    });
    gauges.add('commit_statuses', statuses);
    listeners.push({ name: 'reporting its status', listener: statuses });
  }
  listeners.push({ name: 'counting it in the insights', listener: new InsightRollup({ store, logger }) });
  if (webhooks !== undefined) listeners.push({ name: 'announcing it to webhooks', listener: webhooks });
  return {
    async buildUpdated(change) {
      for (const { name, listener } of listeners) {
        try {
          await listener.buildUpdated(change);
        } catch (error) {
          logger.warn({ err: error }, `build ${change.build.id}: ${name} failed`);
        }
      }
    },
  };
}
