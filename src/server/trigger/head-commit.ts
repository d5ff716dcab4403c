import type { Logger } from 'pino';
import type { Repo } from '../../core/repo.js';
import type { ScmHookBuild, ScmProvider } from '../../core/scm.js';
import type { User } from '../../core/user.js';
import { scmTokenOf } from '../auth/scm-token.js';

/**
 * A hook without its full commit: Gogs' pull request payloads name branches, not commits (the head
 * of the source branch is built, as Woodpecker's Gogs driver does); Bitbucket's give 12-character
 * hashes, and Bitbucket Server's pushes a hash without message or author, for a tag maybe the tag
 * object's (the commit they name is read). Read with the repository owner's token.
 */
export async function withHeadCommit(
  deps: { provider: Pick<ScmProvider, 'findCommit'>; logger: Pick<Logger, 'warn'> },
  repo: Repo,
  owner: User,
  hook: ScmHookBuild,
): Promise<ScmHookBuild> {
  const [namespace = '', name = ''] = (hook.sourceRepo || repo.slug).split('/');
  try {
    const head = await deps.provider.findCommit(
      scmTokenOf(owner),
      { namespace, name },
      hook.after === '' ? { branch: hook.source } : { sha: hook.after },
    );
    return {
      ...hook,
      after: head.sha,
      before: hook.before || head.sha,
      message: hook.message || head.message,
      link: hook.link || head.link,
      authorLogin: hook.authorLogin || head.authorLogin,
      authorName: hook.authorName || head.authorName,
      authorEmail: hook.authorEmail || head.authorEmail,
      authorAvatar: hook.authorAvatar || head.authorAvatar,
      incomplete: false,
    };
  } catch (error) {
    deps.logger.warn(
      { err: error, repo: repo.slug, source: `${hook.sourceRepo}:${hook.source}` },
      'the head commit of the hook could not be read',
    );
    return hook;
  }
}
