import { posix } from 'node:path';
import { RESTRICTED_WORKSPACES } from '../lint/pipeline.js';
import type { Pipeline } from '../types.js';

/** Where Drone puts the workspace, and so svc, for compatibility. */
export const DEFAULT_WORKSPACE = '/drone/src';

/** The workspace of a run: the volume is mounted at `base`, steps start in `full` (`base` joined with `path`). */
export interface Workspace {
  readonly base: string;
  readonly path: string;
  readonly full: string;
}

/**
 * Drone's rules: `base` defaults to /drone/src; a `path` relative to it is joined to it; an absolute
 * `path` without a `base` is the workspace itself (Drone's documented `workspace: {path: /drone/src}`);
 * a workspace that would hide a system directory falls back to the default.
 */
export function resolveWorkspace(pipeline: Pipeline, defaultBase: string): Workspace {
  const fallback = defaultBase !== '' ? defaultBase : DEFAULT_WORKSPACE;
  let { base, path } = pipeline.workspace;
  if (base === '' && path.startsWith('/')) {
    base = path;
    path = '';
  } else if (base === '') {
    base = fallback;
  }
  base = clean(base);
  const full = clean(posix.join(base, path));
  if (RESTRICTED_WORKSPACES.includes(full) || RESTRICTED_WORKSPACES.includes(base)) {
    return { base: fallback, path: '', full: fallback };
  }
  return { base, path, full };
}

function clean(path: string): string {
  const normal = posix.normalize(path);
  return normal.length > 1 ? normal.replace(/\/+$/, '') : normal;
}

/** A step's working directory: its own (relative ones start in the workspace), else the workspace. */
export function workingDirectory(own: string, workspace: Workspace): string {
  if (own === '') return workspace.full;
  return own.startsWith('/') ? own : posix.join(workspace.full, own);
}
