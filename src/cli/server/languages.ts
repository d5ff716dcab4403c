import type { ServerSettings } from '../../config/index.js';
import { PipelineLanguages } from '../../pipeline/languages/index.js';
import { JsonnetEvaluator } from '../../pipeline/languages/jsonnet/evaluator.js';
import { LANGUAGE_LIMITS } from '../../pipeline/languages/limits.js';
import { StarlarkEvaluator } from '../../pipeline/languages/starlark/evaluator.js';
import { TemplateRenderer } from '../../pipeline/templates/index.js';

/**
 * The configuration languages the settings enable (SVC_TMPLJSON_ENABLED, SVC_TMPLSCRIPT_ENABLED), or
 * why one cannot be: Jsonnet is an optional native library that needs cmake and a C++ compiler
 * when svc is installed. Templates written in Jsonnet or Starlark render under the same settings
 * (Drone renders them regardless): a namespace's templates run on the server as pipeline programs
 * do. YAML templates always render. The evaluators are shared.
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
  const evaluators = {
    ...(jsonnet ? { jsonnet: new JsonnetEvaluator(LANGUAGE_LIMITS.jsonnet) } : {}),
    // The worker starts with the first .star file and does not keep the process alive when idle.
    ...(settings.SVC_TMPLSCRIPT_ENABLED === true
      ? { starlark: new StarlarkEvaluator(LANGUAGE_LIMITS.starlark) }
      : {}),
  };
  return {
    languages: new PipelineLanguages(evaluators),
    templates: new TemplateRenderer({
      evaluators,
      unavailable: {
        jsonnet: 'they are enabled with SVC_TMPLJSON_ENABLED=true',
        starlark: 'they are enabled with SVC_TMPLSCRIPT_ENABLED=true',
      },
    }),
  };
}
