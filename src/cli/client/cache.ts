import { repoArg } from './args.js';
import type { Group, VerbContext } from './command.js';
import { UsageError } from './errors.js';
import { bytes, show, table, when } from './output.js';

interface WireCache {
  key: string;
  scope: string;
  size: number;
  created: number;
  used: number;
}

const cachesPath = (context: VerbContext) => `${repoArg(context.positionals[0]).path}/caches`;

const cacheTable = (caches: readonly WireCache[]) =>
  caches.length === 0
    ? 'no caches\n'
    : table(
        ['KEY', 'SCOPE', 'SIZE', 'LAST USED'],
        caches.map((c) => [c.key, c.scope, bytes(c.size), when(c.used)]),
      );

export const cacheGroup: Group = {
  name: 'cache',
  summary: 'Build caches of a repository: what steps’ `cache:` saved, per ref (docs/caches.md).',
  verbs: {
    ls: {
      args: '<owner/name>',
      summary: 'Lists the caches, newest first (write access)',
      async run(context) {
        show(context, await context.api.get<WireCache[]>(cachesPath(context)), cacheTable);
      },
    },
    rm: {
      args: '<owner/name> <key> | <owner/name> --all',
      summary: 'Removes a key’s caches in every scope, or with --all every cache (repository admins)',
      options: { all: { type: 'boolean', help: 'remove every cache of the repository' } },
      async run(context) {
        const repo = repoArg(context.positionals[0]);
        const given = context.positionals[1];
        const key = given === '' ? undefined : given;
        const all = context.values.all === true;
        if (key !== undefined && all) throw new UsageError('give a key or --all, not both');
        if (key === undefined) {
          if (!all) throw new UsageError('missing the cache’s key; to remove every cache, give --all');
          await context.api.delete(cachesPath(context));
          if (!context.json) context.io.stdout(`every cache of ${repo.slug} removed\n`);
          return;
        }
        await context.api.delete(`${cachesPath(context)}/${encodeURIComponent(key)}`);
        if (!context.json) context.io.stdout(`cache ${key} removed\n`);
      },
    },
  },
};
