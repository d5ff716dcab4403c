/**
 * Who may do what, as Bitbucket Server's permission scheme has it (simplified): a project grants
 * PROJECT_READ (`NewUser.orgs`) or PROJECT_ADMIN (`orgAdmin`, which implies write and read) to a user;
 * a repository grants REPO_ADMIN/REPO_WRITE/REPO_READ (`NewRepo.admins/writers/readers`); the owner of
 * a personal project (`~slug`) administers it. A project grant is inherited by its repositories. A
 * public repository is readable by anyone but counts for no `permission=` filter. Not modelled:
 * groups, global permissions (SYS_ADMIN sees everything), public projects, PROJECT_WRITE grants,
 * PROJECT_VIEW implied by a repository grant (here such a project is listed, as Bitbucket does).
 */
import type { Repo } from '../forge/state.js';
import type { Env, Project } from './env.js';

export type Level = 'READ' | 'WRITE' | 'ADMIN';

const RANK: Record<Level, number> = { READ: 1, WRITE: 2, ADMIN: 3 };

/** Whether `level` satisfies `wanted`. */
export const reaches = (level: Level | undefined, wanted: Level): boolean =>
  level !== undefined && RANK[level] >= RANK[wanted];

const higher = (a: Level | undefined, b: Level | undefined): Level | undefined =>
  a === undefined ? b : b === undefined ? a : RANK[a] >= RANK[b] ? a : b;

/** `PRJ` → a normal project; `~slug` → that user's personal project `~SLUG`. Made on first use. */
export function ensureProject(env: Env, owner: string): Project {
  const found = env.projects.get(owner.toLowerCase());
  if (found !== undefined) return found;
  const slug = owner.startsWith('~') ? owner.slice(1).toLowerCase() : undefined;
  const user = slug === undefined ? undefined : env.state.user(slug);
  const project: Project = {
    id: env.state.nextId(),
    key: slug === undefined ? owner : `~${slug.toUpperCase()}`,
    name: slug === undefined ? owner : user === undefined ? slug : displayName(user.login),
    owner: slug,
  };
  env.projects.set(owner.toLowerCase(), project);
  return project;
}

export const displayName = (login: string): string => `${login.charAt(0).toUpperCase()}${login.slice(1)}`;

export function projectLevel(env: Env, project: Project, login: string | undefined): Level | undefined {
  if (login === undefined) return undefined;
  const who = login.toLowerCase();
  if (project.owner !== undefined) return project.owner === who ? 'ADMIN' : undefined;
  const user = env.state.user(who);
  const key = project.key.toLowerCase();
  if (user === undefined) return undefined;
  if (user.orgAdmin.includes(key)) return 'ADMIN';
  return user.orgs.some((org) => org.toLowerCase() === key) ? 'READ' : undefined;
}

/** The user's granted permission on a repository (its project's included); public access is not a grant. */
export function repoLevel(env: Env, repo: Repo, login: string | undefined): Level | undefined {
  if (login === undefined) return undefined;
  const who = login.toLowerCase();
  const granted: Level | undefined = repo.admins.has(who)
    ? 'ADMIN'
    : repo.writers.has(who)
      ? 'WRITE'
      : repo.readers.has(who)
        ? 'READ'
        : undefined;
  return higher(granted, projectLevel(env, ensureProject(env, repo.owner), login));
}

export const canRead = (env: Env, repo: Repo, login: string | undefined): boolean =>
  !repo.private || repoLevel(env, repo, login) !== undefined;

/** A project is visible with a grant on it, or when one of its repositories is readable. */
export function projectVisible(env: Env, project: Project, login: string | undefined): boolean {
  if (projectLevel(env, project, login) !== undefined) return true;
  return reposOf(env, project).some((repo) => canRead(env, repo, login));
}

export function reposOf(env: Env, project: Project): Repo[] {
  return [...env.state.repos.values()]
    .filter((repo) => ensureProject(env, repo.owner) === project)
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** `permission=REPO_WRITE` → 'WRITE'; also PROJECT_*; undefined when absent, null when unknown. */
export function wantedLevel(value: string | null, prefix: 'REPO' | 'PROJECT'): Level | undefined | null {
  if (value === null || value === '') return undefined;
  const level = value.startsWith(`${prefix}_`) ? value.slice(prefix.length + 1) : '';
  return level === 'READ' || level === 'WRITE' || level === 'ADMIN' ? level : null;
}
