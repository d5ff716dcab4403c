import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { SvcError } from '../../../src/core/errors.js';
import type { ScmHookRequest, ScmHookResult } from '../../../src/core/scm.js';
import { parseHook as bitbucket } from '../../../src/scm/bitbucket/parse.js';
import { parseHook as bitbucketServer } from '../../../src/scm/bitbucket-server/parse.js';
import { parseHook as gitea } from '../../../src/scm/gitea/parse.js';
import { parseHook as github } from '../../../src/scm/github/parse.js';
import { parseHook as gitlab } from '../../../src/scm/gitlab/parse.js';
import { parseHook as gogs } from '../../../src/scm/gogs/parse.js';
import { mutate } from '../mutate.js';
import type { FuzzTarget } from '../target.js';

const SECRET = 'fuzzing-secret';
const hmac = (body: Buffer): string => createHmac('sha256', SECRET).update(body).digest('hex');

/** How each provider signs a delivery and names its event, and what names a repository in its payloads. */
interface Provider {
  name: string;
  parse: (request: ScmHookRequest, secretOf: () => Promise<string | undefined>) => Promise<ScmHookResult>;
  headers: (event: string, body: Buffer) => Record<string, string>;
  events: string[];
  identity: fc.Arbitrary<Record<string, unknown>>;
}

const id = fc.integer({ min: 1, max: 2 ** 31 });
const word = fc.string({ minLength: 1, maxLength: 12 });
const owner = fc.record({ login: word, username: word });

const PROVIDERS: Provider[] = [
  {
    name: 'gitea',
    parse: gitea,
    headers: (event, body) => ({ 'x-gitea-event': event, 'x-gitea-signature': hmac(body) }),
    events: ['push', 'create', 'pull_request', 'delete', 'release'],
    identity: fc.record({ repository: fc.record({ id, name: word, owner, full_name: word }) }),
  },
  {
    name: 'gogs',
    parse: gogs,
    headers: (event, body) => ({ 'x-gogs-event': event, 'x-gogs-signature': hmac(body) }),
    events: ['push', 'create', 'pull_request', 'delete'],
    identity: fc.record({ repository: fc.record({ id, name: word, owner, full_name: word }) }),
  },
  {
    name: 'gitlab',
    parse: gitlab,
    headers: (event) => ({ 'x-gitlab-event': event, 'x-gitlab-token': SECRET }),
    events: ['Push Hook', 'Tag Push Hook', 'Merge Request Hook', 'System Hook'],
    identity: fc.record({ project: fc.record({ id, path_with_namespace: word, web_url: word }) }),
  },
  {
    name: 'bitbucket',
    parse: bitbucket,
    headers: (event, body) => ({ 'x-event-key': event, 'x-hub-signature': `sha256=${hmac(body)}` }),
    events: ['repo:push', 'pullrequest:created', 'pullrequest:updated', 'pullrequest:fulfilled'],
    identity: fc.record({ repository: fc.record({ uuid: word, full_name: word, name: word }) }),
  },
  {
    name: 'bitbucket-server',
    parse: bitbucketServer,
    headers: (event, body) => ({ 'x-event-key': event, 'x-hub-signature': `sha256=${hmac(body)}` }),
    events: ['repo:refs_changed', 'pr:opened', 'pr:from_ref_updated', 'pr:merged'],
    identity: fc.record({ repository: fc.record({ id, slug: word, project: fc.record({ key: word }) }) }),
  },
];

/** GitHub's real payloads (@octokit/webhooks-examples), each with one field replaced by anything. */
const examples = (
  JSON.parse(
    readFileSync(
      createRequire(import.meta.url).resolve('@octokit/webhooks-examples/api.github.com/index.json'),
      'utf8',
    ),
  ) as { name: string; examples: unknown[] }[]
).flatMap(({ name, examples: list }) => list.map((payload) => ({ event: name, payload })));

// Pushes and pull requests are what svc reads in depth; other events it acknowledges and ignores.
const READ_IN_DEPTH = examples.filter(({ event }) =>
  ['push', 'pull_request', 'create', 'delete'].includes(event),
);

const githubDelivery = fc
  .record({
    example: fc.oneof(
      { arbitrary: fc.constantFrom(...READ_IN_DEPTH), weight: 4 },
      { arbitrary: fc.constantFrom(...examples), weight: 1 },
    ),
    path: fc.array(fc.nat(), { maxLength: 6 }),
    replacement: fc.jsonValue(),
  })
  .map(({ example, path, replacement }) => {
    const body = Buffer.from(JSON.stringify(mutate(example.payload, path, replacement)));
    return {
      provider: 'github',
      request: {
        headers: { 'x-github-event': example.event, 'x-hub-signature-256': `sha256=${hmac(body)}` },
        body,
      },
    };
  });

const otherDelivery = fc.constantFrom(...PROVIDERS).chain((provider) =>
  fc
    .record({
      identity: provider.identity,
      rest: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 }),
      event: fc.oneof(fc.constantFrom(...provider.events), fc.string()),
      raw: fc.nat(9).map((n) => n === 0),
      text: fc.string(),
    })
    .map(({ identity, rest, event, raw, text }) => {
      // Mostly a payload that names a repository; sometimes bytes that are not JSON at all.
      const body = Buffer.from(raw ? text : JSON.stringify({ ...rest, ...identity }));
      return { provider: provider.name, request: { headers: provider.headers(event, body), body } };
    }),
);

const PARSERS: Record<string, Provider['parse']> = {
  github,
  ...Object.fromEntries(PROVIDERS.map((p) => [p.name, p.parse])),
};

export const webhookTarget: FuzzTarget = {
  name: 'webhooks',
  promise:
    "every provider's parser, given signed deliveries of any content, reads them or refuses them with INVALID_INPUT or UNAUTHORIZED",
  property: () =>
    fc.asyncProperty(fc.oneof(githubDelivery, otherDelivery), async ({ provider, request }) => {
      const parse = PARSERS[provider];
      if (parse === undefined) throw new Error(`no parser ${provider}`);
      try {
        await parse(request, () => Promise.resolve(SECRET));
      } catch (error) {
        if (!(error instanceof SvcError) || !['INVALID_INPUT', 'UNAUTHORIZED'].includes(error.code))
          throw error;
        if (error.message.trim() === '') throw new Error('an error without a message');
      }
    }),
};
