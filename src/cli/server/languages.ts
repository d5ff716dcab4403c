import type { ServerSettings } from '../../config/index.js';
import { PipelineLanguages } from '../../pipeline/languages/index.js';
import { JsonnetEvaluator } from '../../pipeline/languages/jsonnet/evaluator.js';
import { LANGUAGE_LIMITS } from '../../pipeline/languages/limits.js';
import { StarlarkEvaluator } from '../../pipeline/languages/starlark/evaluator.js';
import { TemplateRenderer } from '../../pipeline/templates/index.js';

/**
 * The configuration languages the settings enable (SVC_TMPLJSON_ENABLED, SVC_TMPLSCRIPT_ENABLED), or
 * why one cannot be: Jsonnet is an optional native library that needs cmake and a C++ compiler
 * when svc is installed. Templates render in every language svc has, whatever the settings say,
 * as Drone renders them (their authors administer a namespace, unlike a pipeline file's); the
 * evaluators are shared.
 */
export function pipelineLanguages(
  settings: Pick<ServerSettings, 'SVC_TMPLJSON_ENABLED' | 'SVC_TMPLSCRIPT_ENABLED'>,
): { languages: PipelineLanguages; templates: TemplateRenderer } | { error: string } {
  const jsonnet = settings.SVC_TMPLJSON_ENABLED === true;
  if (jsonnet && !JsonnetEvaluator.available()) {
    return {
      error:
        'SVC_TMPLJSON_ENABLED: Jsonnet support is not installed: the optional package @hanazuki/node-jsonnet was not built (it needs cmake and a C++ compiler when `npm ci` runs; see docs/pipelines.md)',
    };
  }
  const jsonnetEvaluator = JsonnetEvaluator.available()
    ? new JsonnetEvaluator(LANGUAGE_LIMITS.jsonnet)
    : undefined;
  // The worker starts with the first Starlark program and does not keep the process alive when idle.
  const starlark = new StarlarkEvaluator(LANGUAGE_LIMITS.starlark);
  return {
    languages: new PipelineLanguages({
      ...(jsonnet && jsonnetEvaluator !== undefined ? { jsonnet: jsonnetEvaluator } : {}),
      ...(settings.SVC_TMPLSCRIPT_ENABLED === true ? { starlark } : {}),
    }),
    templates: new TemplateRenderer({
      evaluators: { starlark, ...(jsonnetEvaluator === undefined ? {} : { jsonnet: jsonnetEvaluator }) },
    }),
  };
}
