import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { templateNameProblem, templateNamespaceProblem } from '../../../core/template.js';
import { TEMPLATE_LIMITS } from '../../../pipeline/templates/index.js';
import type { ImportContext } from './context.js';
import { bytes, text } from './values.js';

/**
 * Drone's templates (`kind: template` documents load them), into svc's templates of the same
 * namespace and name; one svc already has is left as it is. A name svc refuses (not one file
 * name with a template extension), empty text or text above svc's limit is skipped, saying why.
 * With `saveTo`, each one's text is also written to `<saveTo>/<namespace>/<name>`, the folder
 * `svc exec --template-dir <saveTo>/<namespace>` reads.
 */
export async function importTemplates(ctx: ImportContext, saveTo: string | undefined): Promise<void> {
  if (!ctx.tables.has('templates')) return;
  for (const row of await ctx.drone.select('select * from templates order by template_id')) {
    const namespace = text(row, 'template_namespace');
    const name = text(row, 'template_name');
    const data = bytes(row, 'template_data').toString('utf8');
    const item = `${namespace} ${name}`;
    const problem = templateNamespaceProblem(namespace) ?? templateNameProblem(name) ?? dataProblem(data);
    if (problem !== undefined) {
      ctx.report.skipped('templates', item, problem);
      continue;
    }
    if (saveTo !== undefined) {
      mkdirSync(join(saveTo, namespace), { recursive: true });
      writeFileSync(join(saveTo, namespace, name), data);
    }
    if ((await ctx.svc.templates.findName(namespace, name)) !== undefined) {
      ctx.report.present('templates');
      continue;
    }
    await ctx.svc.templates.create({ namespace, name, data });
    ctx.report.imported('templates');
  }
  ctx.progress(ctx.report.line('templates'));
}

function dataProblem(data: string): string | undefined {
  if (data === '') return 'it has no text';
  if (Buffer.byteLength(data) > TEMPLATE_LIMITS.templateBytes)
    return `its text is larger than svc's limit of ${TEMPLATE_LIMITS.templateBytes} bytes`;
  return undefined;
}
