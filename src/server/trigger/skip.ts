import type { ScmHookBuild } from '../../core/scm.js';

/** The markers that ask for no build, as Drone reads them (case-insensitive). */
const SKIP_MARKERS = ['[ci skip]', '[skip ci]', '***no_ci***'] as const;

/**
 * True when the commit message (or, for pull requests, the title) asks for no build. Tags are never
 * skipped: a release tag must build even when its commit said `[skip ci]`, as in Drone.
 */
export function skipDirective(hook: Pick<ScmHookBuild, 'event' | 'message' | 'title'>): boolean {
  if (hook.event === 'tag' || hook.event === 'cron' || hook.event === 'custom') return false;
  return hasMarker(hook.message) || hasMarker(hook.title);
}

function hasMarker(text: string): boolean {
  const lower = text.toLowerCase();
  return SKIP_MARKERS.some((marker) => lower.includes(marker));
}
