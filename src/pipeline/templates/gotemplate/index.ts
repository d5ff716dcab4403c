import { BUILTINS } from './builtins.js';
import type { ExecLimits } from './budget.js';
import { Executor } from './exec.js';
import { FUNCMAP } from './funcmap.js';
import type { FuncTable } from './funcs.js';
import { parseTemplate } from './parse.js';
import type { GoValue } from './values.js';

export { GoTemplateError, type Where } from './errors.js';
export type { ExecLimits } from './budget.js';
export { GoStruct, GoTime, type GoValue, type StructField } from './values.js';

/** The functions of Drone's YAML templates: Go's builtins and drone/funcmap's SafeFuncs. */
const FUNCS: FuncTable = new Map([...BUILTINS, ...FUNCMAP]);

/**
 * Renders a template written in Go's text/template language, as Drone renders YAML templates
 * (`template.New(name).Funcs(funcmap.SafeFuncs).Parse(text).Execute(out, data)`). Throws
 * GoTemplateError, with the line and column, when it cannot be parsed or executed or a limit is hit.
 */
export function renderGoTemplate(
  name: string,
  source: string,
  data: GoValue,
  limits: ExecLimits,
  now: () => number = Date.now,
): string {
  const tree = parseTemplate(source, (fn) => FUNCS.has(fn));
  return new Executor(tree, name, FUNCS, limits, now).run(data);
}
