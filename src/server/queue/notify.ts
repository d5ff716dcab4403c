import type { Logger } from 'pino';
import type { BuildListener } from '../../core/events.js';

/** Tells the listener about a build change; its failures are logged, never thrown (BuildListener's contract). */
export async function notifyListener(
  listener: BuildListener,
  change: Parameters<BuildListener['buildUpdated']>[0],
  logger: Logger,
): Promise<void> {
  try {
    await listener.buildUpdated(change);
  } catch (error) {
    logger.error(
      { err: error, build: change.build.id, repo: change.repo.slug },
      'the build listener failed; the build itself is fine',
    );
  }
}
