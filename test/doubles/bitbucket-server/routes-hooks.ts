/**
 * Repository webhooks (Bitbucket Server 5.4+), below `/rest/api/1.0/projects/{key}/repos/{slug}`;
 * every call needs REPO_ADMIN (401 AuthorisationException otherwise):
 *
 * - `GET …/webhooks` (paged), `GET …/webhooks/{id}`,
 * - `POST …/webhooks` `{name, url, active, events, configuration: {secret}}` → 201 with the webhook,
 * - `PUT …/webhooks/{id}` (the full object) → 200, `DELETE …/webhooks/{id}` → 204.
 *
 * Validation answers 400 with one error per field (`context` = `name`, `url`, `events`, or
 * `events[i].id` with "the event X is unknown", as a server before 7.0 says of
 * `pr:from_ref_updated`); an unknown id is 404. The webhook object shows the secret, as the GS
 * fixtures do. Not modelled: basic-auth credentials, `statistics`, project-level webhooks, the
 * "test connection" endpoint, `sslVerificationRequired` (always true).
 */
import { jsonBody, type Context, type Reply } from '../forge/router.js';
import type { Hook, Repo } from '../forge/state.js';
import { atLeast, EXCEPTIONS, errors, invalid, paged, str, type Env, type Route } from './env.js';
import { REPO, withRepoLevel } from './routes-repos.js';

const EVENTS = [
  'repo:refs_changed',
  'repo:modified',
  'repo:forked',
  'repo:comment:added',
  'repo:comment:edited',
  'repo:comment:deleted',
  'mirror:repo_synchronized',
  'project:modified',
  'pr:opened',
  'pr:modified',
  'pr:reviewer:updated',
  'pr:reviewer:approved',
  'pr:reviewer:unapproved',
  'pr:reviewer:needs_work',
  'pr:merged',
  'pr:declined',
  'pr:deleted',
  'pr:comment:added',
  'pr:comment:edited',
  'pr:comment:deleted',
];

/** The events this version knows: `pr:from_ref_updated` (and `pr:to_ref_updated`) came with 7.0. */
const knownEvents = (env: Env) =>
  atLeast(env, '7.0') ? [...EVENTS, 'pr:from_ref_updated', 'pr:to_ref_updated'] : EVENTS;

function renderHook(env: Env, hook: Hook) {
  return {
    id: hook.id,
    name: env.hookNames.get(hook.id) ?? '',
    createdDate: Date.parse(hook.created),
    updatedDate: Date.parse(hook.updated),
    events: [...hook.events],
    configuration: hook.secret === '' ? {} : { secret: hook.secret },
    url: hook.url,
    active: hook.active,
    scopeType: 'repository',
    sslVerificationRequired: true,
  };
}

/** The webhook fields of a request body, or the 400 listing what is wrong. */
function readHook(
  env: Env,
  ctx: Context,
): Reply | { name: string; url: string; events: string[]; secret: string; active: boolean } {
  const body = jsonBody(ctx);
  if (body === undefined) return errors(400, 'Unexpected JSON in the request body', null);
  const problems: { context: string; message: string }[] = [];
  const name = (str(body, 'name') ?? '').trim();
  if (name === '') problems.push({ context: 'name', message: 'Name must not be blank' });
  const url = str(body, 'url') ?? '';
  if (!/^https?:\/\/[^/\s]+/i.test(url)) problems.push({ context: 'url', message: 'The URL is not valid' });
  const events = Array.isArray(body.events) ? body.events : [];
  if (events.length === 0) problems.push({ context: 'events', message: 'At least one event is required' });
  const known = knownEvents(env);
  events.forEach((event, i) => {
    if (typeof event !== 'string' || !known.includes(event))
      problems.push({ context: `events[${i}].id`, message: `the event ${String(event)} is unknown` });
  });
  if (problems.length > 0) return invalid(problems);
  const configuration = body.configuration;
  const secret =
    typeof configuration === 'object' && configuration !== null && 'secret' in configuration
      ? String(configuration.secret)
      : '';
  return { name, url, events: events.map(String), secret, active: body.active !== false };
}

function findHook(repo: Repo, ctx: Context): Hook | Reply {
  const hook = repo.hooks.find((h) => String(h.id) === ctx.params.id);
  return hook ?? errors(404, `No webhook with id ${ctx.params.id ?? ''} exists.`, EXCEPTIONS.webhook);
}

function create(env: Env, repo: Repo, ctx: Context): Reply {
  const fields = readHook(env, ctx);
  if ('status' in fields) return fields;
  const now = new Date(env.now()).toISOString();
  const hook: Hook = {
    id: env.state.nextId(),
    url: fields.url,
    secret: fields.secret,
    contentType: 'json',
    insecureSsl: '0',
    events: fields.events,
    active: fields.active,
    created: now,
    updated: now,
  };
  env.hookNames.set(hook.id, fields.name);
  repo.hooks.push(hook);
  return { status: 201, body: renderHook(env, hook) };
}

function update(env: Env, repo: Repo, ctx: Context): Reply {
  const hook = findHook(repo, ctx);
  if ('status' in hook) return hook;
  const fields = readHook(env, ctx);
  if ('status' in fields) return fields;
  Object.assign(hook, {
    url: fields.url,
    secret: fields.secret,
    events: fields.events,
    active: fields.active,
    updated: new Date(env.now()).toISOString(),
  });
  env.hookNames.set(hook.id, fields.name);
  return { status: 200, body: renderHook(env, hook) };
}

export function hookRoutes(env: Env): Route[] {
  const admin = (then: (repo: Repo, ctx: Context) => Reply) => (ctx: Context) =>
    withRepoLevel(env, ctx, 'ADMIN', (repo) => then(repo, ctx));
  return [
    {
      method: 'GET',
      pattern: `${REPO}/webhooks`,
      handler: admin((repo, ctx) =>
        paged(
          ctx,
          repo.hooks.map((h) => renderHook(env, h)),
        ),
      ),
    },
    { method: 'POST', pattern: `${REPO}/webhooks`, handler: admin((repo, ctx) => create(env, repo, ctx)) },
    {
      method: 'GET',
      pattern: `${REPO}/webhooks/{id}`,
      handler: admin((repo, ctx) => {
        const hook = findHook(repo, ctx);
        return 'status' in hook ? hook : { status: 200, body: renderHook(env, hook) };
      }),
    },
    {
      method: 'PUT',
      pattern: `${REPO}/webhooks/{id}`,
      handler: admin((repo, ctx) => update(env, repo, ctx)),
    },
    {
      method: 'DELETE',
      pattern: `${REPO}/webhooks/{id}`,
      handler: admin((repo, ctx) => {
        const hook = findHook(repo, ctx);
        if ('status' in hook) return hook;
        repo.hooks = repo.hooks.filter((h) => h !== hook);
        return { status: 204 };
      }),
    },
  ];
}
