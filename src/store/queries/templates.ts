import type { Kysely, Selectable } from 'kysely';
import { NotFoundError } from '../../core/errors.js';
import type { NewTemplate, Template, TemplateStore } from '../../core/template.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { Tables, TemplateRow } from '../tables.js';
import { changed, insertId, write } from './rows.js';

function toTemplate(row: Selectable<TemplateRow>): Template {
  return {
    id: Number(row.id),
    namespace: row.namespace,
    name: row.name,
    data: row.data,
    namespaceUid: row.namespace_uid,
    created: Number(row.created),
    updated: Number(row.updated),
  };
}

const taken = (template: NewTemplate) =>
  `template "${template.name}" already exists in namespace "${template.namespace}"`;

/** Templates in the `templates` table, by (namespace, name). */
export class SqlTemplateStore implements TemplateStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async findName(namespace: string, name: string): Promise<Template | undefined> {
    const row = await this.#db
      .selectFrom('templates')
      .selectAll()
      .where('namespace', '=', namespace)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && toTemplate(row);
  }

  async list(namespace: string): Promise<Template[]> {
    const rows = await this.#db
      .selectFrom('templates')
      .selectAll()
      .where('namespace', '=', namespace)
      .orderBy('name')
      .execute();
    return rows.map(toTemplate);
  }

  async listAll(): Promise<Template[]> {
    const rows = await this.#db
      .selectFrom('templates')
      .selectAll()
      .orderBy('namespace')
      .orderBy('name')
      .execute();
    return rows.map(toTemplate);
  }

  async create(template: NewTemplate): Promise<Template> {
    const now = Date.now();
    const values = {
      namespace: template.namespace,
      name: template.name,
      data: template.data,
      namespace_uid: template.namespaceUid ?? '',
      created: now,
      updated: now,
    };
    const id = await write(
      this.#adapter,
      () => insertId(this.#adapter, this.#db.insertInto('templates').values(values)),
      { conflict: taken(template) },
    );
    return { ...template, namespaceUid: values.namespace_uid, id, created: now, updated: now };
  }

  async update(template: Template): Promise<Template> {
    const updated = Date.now();
    const result = await write(
      this.#adapter,
      () =>
        this.#db
          .updateTable('templates')
          .set({
            namespace: template.namespace,
            name: template.name,
            data: template.data,
            namespace_uid: template.namespaceUid,
            updated,
          })
          .where('id', '=', template.id)
          .executeTakeFirstOrThrow(),
      { conflict: taken(template) },
    );
    if (changed(result) === 0) throw new NotFoundError(`template ${template.id}`);
    return { ...template, updated };
  }

  async delete(id: number): Promise<void> {
    await this.#db.deleteFrom('templates').where('id', '=', id).execute();
  }

  async bindNamespace(id: number, namespaceUid: string): Promise<boolean> {
    if (namespaceUid === '') return false;
    const result = await this.#db
      .updateTable('templates')
      .set({ namespace_uid: namespaceUid })
      .where('id', '=', id)
      .where('namespace_uid', '=', '')
      .executeTakeFirstOrThrow();
    return changed(result) > 0;
  }
}
