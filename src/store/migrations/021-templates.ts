import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type Migration } from './migration.js';

/**
 * `templates`: Drone's pipeline templates (TemplateStore), one row per template of a namespace;
 * (namespace, name) is unique, and its index serves the list of a namespace. Namespaces and names
 * compare exactly on every dialect (MySQL's binary collation, as the other tables). `data` is the
 * template's text (MEDIUMTEXT on MySQL: up to 16 MiB, far above the API's limit). `namespace_uid`
 * is the provider's id of the namespace, empty until known (TemplateStore.bindNamespace).
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(
    db,
    adapter,
    'templates',
    {
      namespace: 'key',
      name: 'key',
      data: 'text',
      namespace_uid: 'key',
      created: 'bigint',
      updated: 'bigint',
    },
    { withId: true },
  )
    .addUniqueConstraint('templates_namespace_name_uq', ['namespace', 'name'])
    .execute();
}

export const templates: Migration = { version: 21, name: 'pipeline templates', up };
