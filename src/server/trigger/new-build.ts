import type { NewBuild } from '../../core/build.js';
import type { ScmHookBuild } from '../../core/scm.js';

/** Who created builds that come from webhooks. */
export const HOOK_TRIGGER = '@hook';

/** Drone keeps at most this many characters of a title or message. */
const MAX_TEXT = 2000;

/** The build record for a hook, as `pending` with no file yet; the trigger fills in the rest. */
export function newBuildOf(repoId: number, hook: ScmHookBuild): NewBuild {
  return {
    repoId,
    parent: 0,
    status: 'pending',
    error: '',
    event: hook.event,
    action: hook.action,
    trigger: HOOK_TRIGGER,
    link: hook.link,
    title: truncate(hook.title),
    message: truncate(hook.message),
    before: hook.before,
    after: hook.after,
    ref: hook.ref,
    sourceRepo: hook.sourceRepo,
    source: hook.source,
    target: hook.target,
    authorLogin: hook.authorLogin,
    authorName: hook.authorName,
    authorEmail: hook.authorEmail,
    authorAvatar: hook.authorAvatar,
    sender: hook.sender,
    params: {},
    cron: '',
    deployTo: '',
    deployId: 0,
    debug: false,
    config: '',
    started: 0,
    finished: 0,
  };
}

function truncate(text: string): string {
  const chars = [...text];
  return chars.length > MAX_TEXT ? chars.slice(0, MAX_TEXT).join('') : text;
}
