import { DATABASE_DRIVERS } from '../core/datasource.js';
import { DEFAULT_EMBEDDED_DATASOURCE, datasourceShape } from './datasource.js';
import { BUILD_EVENTS, WEBHOOK_EVENTS } from './values/entries.js';

const DRIVER_NAMES = { embedded_sql: 'SQLite file', sql_a: 'MySQL or MariaDB', sql_b: 'PostgreSQL' } as const;

/** The part of docs/settings.md before the settings: how values are written. */
export function renderIntro(): string {
  const datasources = DATABASE_DRIVERS.map(
    (driver) => `- \`${driver}\` (${DRIVER_NAMES[driver]}): \`${datasourceShape(driver)}\``,
  ).join('\n');
  const events = Object.entries(WEBHOOK_EVENTS)
    .map(([kind, actions]) => `- \`${kind}\`: ${actions.map((action) => `\`${kind}:${action}\``).join(', ')}`)
    .join('\n');
  return `# svc settings

<!-- Generated from src/config/schema and the test files by scripts/gen-settings-doc.ts (npm run docs:settings). Do not edit by hand. -->

svc is configured through \`SVC_*\` environment variables: the server (\`svc server\`) and the five runner kinds
(\`svc runner docker|nomad|vm|kubernetes|ssh\`) each accept the settings listed for them below.
\`svc config print <kind>\` shows the settings a kind would run with, as JSON.

At start-up svc checks every setting and reports every problem at once, each naming its setting. A variable
that the chosen kind does not accept, or an unknown \`SVC_*\` name, is reported as a warning (with the closest
known name when one is close) and ignored. An empty variable counts as unset.

## Value formats

- **boolean**: \`true\` or \`false\`, nothing else (\`yes\`, \`1\` or \`TRUE\` are refused).
- **duration**: numbers with units, combinable: \`24h\`, \`90m\`, \`1h30m\`, \`45s\`, \`1.5h\`, \`250ms\`, or a plain \`0\`.
  Units: \`h\`, \`m\`, \`s\`, \`ms\`. \`svc config print\` shows the shortest form (\`90m\` as \`1h30m\`, \`3600s\` as \`1h\`).
- **integer**: a decimal whole number (\`12abc\` and \`1.5\` are refused), within the range the setting states.
- **string**: any text. Some strings have a form svc checks: URLs must start with \`http://\` or \`https://\`;
  hosts are a host name with an optional port and no scheme (\`ci.example.com:8443\`); protocols are \`http\` or \`https\`.
- **path**: a file that must exist and be readable when svc starts. Relative paths start at the working directory.
- **list**: comma-separated values (\`a,b,c\`); spaces around entries are trimmed and empty entries dropped.
- **map**: comma-separated \`key:value\` pairs (\`region:eu,tier:gpu\`), split at the first colon, so values may
  hold colons. An entry without a colon or with an empty key is refused.
- **memory**: bytes (\`1048576\`) or a number with a binary unit: \`Ki\`, \`Mi\`, \`Gi\`, \`Ti\`, also written
  \`KiB\`, \`MiB\`, \`GiB\`, \`TiB\` (\`512MiB\`). \`svc config print\` shows the largest exact unit (\`512MiB\`).
- **user**: see \`SVC_USER_CREATE\`.
- **datasource**: see below.

## Datasources

\`SVC_DATABASE_DATASOURCE\` has the form \`SVC_DATABASE_DRIVER\` needs:

${datasources}

With \`embedded_sql\` and no datasource, the database is the file \`${DEFAULT_EMBEDDED_DATASOURCE}\` under the working
directory. With \`sql_a\` or \`sql_b\` the datasource is required. Passwords may be percent-encoded.

## The database secret

\`SVC_DATABASE_SECRET\` is an AES-256 key, which takes 32 bytes. Give either 64 hexadecimal characters
(\`openssl rand -hex 32\`), decoded to 32 bytes, or exactly 32 ASCII characters (\`openssl rand -hex 16\`), whose
bytes are the key. It encrypts secret values, the git provider's access and refresh tokens, repository
signing keys and webhook secrets; API tokens are stored as hashes with or without it. Set it before first
use, as the spec says; if you add it to a database that already holds plain values, svc encrypts them all
at the next start, in one transaction. A database whose values are encrypted refuses to start when the key
is missing or wrong: keep the key (docs/database.md).

## Webhook events

Kinds and their events, for \`SVC_WEBHOOK_EVENTS\`:

${events}

Build events, for \`SVC_LIMIT_EVENTS\`: ${BUILD_EVENTS.map((event) => `\`${event}\``).join(', ')}.

## Secrets and additions

Settings marked **secret** are shown as \`"[redacted]"\` by \`svc config print\`; where only part of a value is
secret (the password of a datasource, the token of \`SVC_USER_CREATE\`, the values of \`SVC_RUNNER_SECRETS\`),
only that part is redacted. Unset secrets show as \`null\`.

Settings marked **svc addition** are not in the specification svc implements; svc adds them because a running
service needs them.

## Where settings are tested

Each setting's **Tested** line is computed when this file is generated, by looking for the setting's exact name, as a
whole word, in the test files (\`*.test.ts\` and \`*.case.ts\` under \`src/\` and \`test/\`). It lists first the files
that exercise what the setting does (**behaviour**), then the settings suite, which only parses and validates
settings: \`src/config\` and \`svc config print\`. Every setting of the specification is parsed there, unset, with a
valid value and with an invalid one where it has a form, through \`test/fixtures/spec-settings.ts\`, even where no
test names it.
"behaviour: not tested by name" means that no behaviour test names the setting: it may still be exercised through
its default or another setting, but nothing checks it by name. A test that starts or stops naming a setting makes
this file stale (its check in \`src/config/docs.test.ts\` fails) until \`npm run docs:settings\` runs again.
`;
}
