import { SERVER } from '../kinds.js';
import { boolean, text } from '../values/scalars.js';
import { group, setting } from './define.js';

/** svc's built-in git provider (SCML, an svc addition): repositories svc hosts itself. */
export const serverLocalGit = group(
  'Server: built-in git provider',
  'svc can host git repositories itself, for trying it without any outside account and for small teams on one machine (docs/local-git.md). `svc server --local` turns it on when no other provider is configured.',
  [
    setting('SVC_SCML_ENABLED', SERVER, boolean, {
      addition: true,
      default: false,
      description:
        'Turns on the built-in git provider (SCML): accounts with passwords svc keeps, repositories served over HTTP at /git/<owner>/<name>.git, builds on every push. Not together with another provider. `svc server --local` sets it when no other provider is configured.',
    }),
    setting('SVC_SCML_ROOT', SERVER, text('a folder'), {
      addition: true,
      defaultDoc:
        '`git` in the data folder (next to the SQLite database; `data/git` with the other databases)',
      description:
        'Where the built-in provider keeps its repositories and its records (forge.json, mode 0600). Back it up with the database: docs/database.md, Backups.',
    }),
    setting('SVC_SCML_CLONE_URL', SERVER, text('an address such as http://172.17.0.1:8080'), {
      addition: true,
      defaultDoc:
        'SVC_SERVER_PROTO://SVC_SERVER_HOST; for the local runner, the Docker network’s gateway in place of localhost',
      description:
        "The address runners' clone steps reach svc's git endpoint by, when it is not the server's public address (runners on another network).",
    }),
  ],
);
