import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ImportContext } from './context.js';
import { bytes, text } from './values.js';

/**
 * Drone's templates (`kind: template` documents load them). svc has no server-side templates, so
 * none is brought into svc's database; with `saveTo`, each one's text is written to
 * `<saveTo>/<namespace>/<name>`, for the repositories that load it to take in as a pipeline file.
 */
export async function importTemplates(ctx: ImportContext, saveTo: string | undefined): Promise<void> {
  if (!ctx.tables.has('templates')) return;
  for (const row of await ctx.drone.select('select * from templates order by template_id')) {
    const namespace = text(row, 'template_namespace');
    const name = text(row, 'template_name');
    const item = `${namespace} ${name}`;
    if (saveTo === undefined) {
      ctx.report.skipped(
        'templates',
        item,
        'svc has no templates; --save-templates DIR keeps its text as a file',
      );
      continue;
    }
    if (!safeName(namespace) || !safeName(name)) {
      ctx.report.skipped('templates', item, 'svc has no templates, and its name cannot be a file name');
      continue;
    }
    const file = join(saveTo, namespace, name);
    mkdirSync(join(saveTo, namespace), { recursive: true });
    writeFileSync(file, bytes(row, 'template_data'));
    ctx.report.skipped('templates', item, `svc has no templates; its text is in ${file}`);
  }
  ctx.progress(ctx.report.line('templates'));
}

/** One path segment: not empty, no separators, not `.` or `..`. */
function safeName(value: string): boolean {
  return value !== '' && value !== '.' && value !== '..' && !/[/\\\0]/.test(value);
}
