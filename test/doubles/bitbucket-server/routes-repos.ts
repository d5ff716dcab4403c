/**
 * Users, projects and repositories of REST API 1.0 (paths below `/rest/api/1.0`):
 *
 * - `GET /users/{slug}` (authenticated callers only; 404 NoSuchUserException).
 * - `GET /projects` (`name` = case-insensitive substring, `permission=PROJECT_READ|WRITE|ADMIN` =
 *   the caller's grant), `GET /projects/{key}` (404 NoSuchProjectException, also when hidden).
 * - `GET /repos` (`name` substring, `projectkey`, `permission=REPO_READ|WRITE|ADMIN`; without a
 *   permission, public repositories are listed too), `GET /projects/{key}/repos`,
 *   `GET /projects/{key}/repos/{slug}` (a private repository the caller cannot read is 404
 *   NoSuchRepositoryException, as if absent).
 *
 * Keys and slugs match case-insensitively. Lists are ordered by project key, then name.
 * Not modelled: `projectname`, `visibility`, `state`, `archived` filters, users search.
 */
import type { Context, Reply } from '../forge/router.js';
import type { Repo } from '../forge/state.js';
import {
  canRead,
  ensureProject,
  projectLevel,
  projectVisible,
  reaches,
  repoLevel,
  wantedLevel,
  type Level,
} from './access.js';
import {
  EXCEPTIONS,
  errors,
  invalid,
  notPermitted,
  paged,
  type Env,
  type Project,
  type Route,
} from './env.js';
import { renderProject, renderRepo, renderUser } from './render.js';

export const API = '/rest/api/1.0';
export const REPO = `${API}/projects/{key}/repos/{slug}`;

/** The project named in the path, if the caller may see it. */
function visibleProject(env: Env, ctx: Context): Project | Reply {
  const key = ctx.params.key ?? '';
  const project = env.projects.get(key.toLowerCase());
  if (project === undefined || !projectVisible(env, project, ctx.login))
    return errors(404, `Project ${key} does not exist.`, EXCEPTIONS.project);
  return project;
}

/** Runs `then` with the repository of the path, answering 404 when it is absent or unreadable. */
export function withRepo(env: Env, ctx: Context, then: (repo: Repo) => Reply): Reply {
  const key = ctx.params.key ?? '';
  const slug = ctx.params.slug ?? '';
  const project = env.projects.get(key.toLowerCase());
  if (project === undefined) return errors(404, `Project ${key} does not exist.`, EXCEPTIONS.project);
  const repo = env.state.repo(key, slug);
  if (repo === undefined || !canRead(env, repo, ctx.login))
    return errors(404, `Repository ${key}/${slug} does not exist.`, EXCEPTIONS.repo);
  return then(repo);
}

/** As `withRepo`, and the caller needs `level` on it (401 AuthorisationException otherwise). */
export function withRepoLevel(env: Env, ctx: Context, level: Level, then: (repo: Repo) => Reply): Reply {
  return withRepo(env, ctx, (repo) =>
    reaches(repoLevel(env, repo, ctx.login), level) || (level === 'READ' && !repo.private)
      ? then(repo)
      : notPermitted(),
  );
}

const contains = (value: string, filter: string | null) =>
  filter === null || value.toLowerCase().includes(filter.trim().toLowerCase());

function sortedRepos(env: Env): Repo[] {
  const keyOf = (repo: Repo) => ensureProject(env, repo.owner).key.toLowerCase();
  return [...env.state.repos.values()].sort(
    (a, b) => keyOf(a).localeCompare(keyOf(b)) || a.name.localeCompare(b.name),
  );
}

function listRepos(env: Env, ctx: Context, only?: Project): Reply {
  const query = ctx.url.searchParams;
  const wanted = wantedLevel(query.get('permission'), 'REPO');
  if (wanted === null)
    return invalid([{ context: 'permission', message: `Invalid permission: ${query.get('permission')}` }]);
  const projectKey = query.get('projectkey')?.toLowerCase();
  const repos = sortedRepos(env).filter((repo) => {
    const project = ensureProject(env, repo.owner);
    if (only !== undefined && project !== only) return false;
    if (projectKey !== undefined && project.key.toLowerCase() !== projectKey) return false;
    if (!contains(repo.name, query.get('name'))) return false;
    return wanted === undefined
      ? canRead(env, repo, ctx.login)
      : reaches(repoLevel(env, repo, ctx.login), wanted);
  });
  return paged(
    ctx,
    repos.map((repo) => renderRepo(env, repo, ctx.login)),
  );
}

function listProjects(env: Env, ctx: Context): Reply {
  const query = ctx.url.searchParams;
  const wanted = wantedLevel(query.get('permission'), 'PROJECT');
  if (wanted === null)
    return invalid([{ context: 'permission', message: `Invalid permission: ${query.get('permission')}` }]);
  const projects = [...env.projects.values()]
    .filter((project) => project.owner === undefined && contains(project.name, query.get('name')))
    .filter((project) =>
      wanted === undefined
        ? projectVisible(env, project, ctx.login)
        : reaches(projectLevel(env, project, ctx.login), wanted),
    )
    .sort((a, b) => a.key.localeCompare(b.key));
  return paged(
    ctx,
    projects.map((project) => renderProject(env, project)),
  );
}

export function repoRoutes(env: Env): Route[] {
  return [
    {
      method: 'GET',
      pattern: `${API}/users/{slug}`,
      handler: (ctx) => {
        if (ctx.login === undefined) return notPermitted();
        const user = env.state.user(ctx.params.slug ?? '');
        return user === undefined
          ? errors(404, `User ${ctx.params.slug ?? ''} does not exist.`, EXCEPTIONS.user)
          : { status: 200, body: renderUser(env, user) };
      },
    },
    { method: 'GET', pattern: `${API}/projects`, handler: (ctx) => listProjects(env, ctx) },
    {
      method: 'GET',
      pattern: `${API}/projects/{key}`,
      handler: (ctx) => {
        const project = visibleProject(env, ctx);
        return 'status' in project ? project : { status: 200, body: renderProject(env, project) };
      },
    },
    { method: 'GET', pattern: `${API}/repos`, handler: (ctx) => listRepos(env, ctx) },
    {
      method: 'GET',
      pattern: `${API}/projects/{key}/repos`,
      handler: (ctx) => {
        const project = visibleProject(env, ctx);
        return 'status' in project ? project : listRepos(env, ctx, project);
      },
    },
    {
      method: 'GET',
      pattern: REPO,
      handler: (ctx) =>
        withRepo(env, ctx, (repo) => ({ status: 200, body: renderRepo(env, repo, ctx.login) })),
    },
  ];
}
