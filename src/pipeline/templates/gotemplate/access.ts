import { GoTemplateError } from './errors.js';
import type { GoFunc, ParamType } from './funcs.js';
import { argText, type Arg } from './nodes.js';
import { timeMethod } from './time-methods.js';
import { GoStruct, GoTime, isMap, sortedKeys, typeName, type GoValue } from './values.js';

/** A failure inside a command: the executor makes it a GoTemplateError at the command that met it. */
export class ExecFailure extends Error {}

/**
 * `receiver.name`, as Go evaluates a field: a map's key (missing: no value), a struct's field
 * (missing: an error), a time's method (with the arguments `methodArgs` gives); a missing receiver
 * gives no value, nil and other values an error.
 */
export function fieldOf(
  receiver: GoValue,
  name: string,
  hasArgs: boolean,
  methodArgs: () => GoValue[],
): GoValue {
  if (receiver === undefined) return undefined;
  if (receiver === null) throw new ExecFailure(`nil pointer evaluating interface {}.${name}`);
  if (receiver instanceof GoTime)
    return timeMethod(receiver, name, methodArgs(), (message) => new ExecFailure(message));
  if (receiver instanceof GoStruct) {
    const field = receiver.field(name);
    if (field === undefined) throw new ExecFailure(`can't evaluate field ${name} in type ${receiver.type}`);
    if (hasArgs) throw new ExecFailure(`${name} has arguments but cannot be invoked as function`);
    return field.value;
  }
  if (isMap(receiver)) {
    if (hasArgs) throw new ExecFailure(`${name} is not a method but has arguments`);
    return Object.hasOwn(receiver, name) ? receiver[name] : undefined;
  }
  throw new ExecFailure(`can't evaluate field ${name} in type ${typeName(receiver)}`);
}

/** A call with the wrong number of arguments fails as Go's does. */
export function checkCount(name: string, fn: GoFunc, count: number): void {
  const want = fn.params.length;
  if (fn.variadic === undefined ? count !== want : count < want) {
    const atLeast = fn.variadic === undefined ? '' : 'at least ';
    throw new ExecFailure(`wrong number of args for ${name}: want ${atLeast}${want} got ${count}`);
  }
}

/** Why a value cannot be a parameter of that type, as Go says it (literals and values differ). */
function typeProblem(type: ParamType, value: GoValue, arg: Arg | undefined): string | undefined {
  if (type === 'any') return undefined;
  const ok =
    type === 'string' ? typeof value === 'string' : typeof value === 'number' && Number.isInteger(value);
  if (ok) return undefined;
  if (arg?.kind === 'string' || arg?.kind === 'number' || arg?.kind === 'bool')
    return `expected ${type === 'int' ? 'integer' : type}; found ${argText(arg)}`;
  if (value === undefined || value === null) return `invalid value; expected ${type}`;
  return `wrong type for value; expected ${type}; got ${typeName(value)}`;
}

/**
 * The arguments must fit the function's parameters: a literal's problem is reported at it
 * (`expected integer; found "3"`), a value's at the command.
 */
export function checkTypes(
  fn: GoFunc,
  values: readonly GoValue[],
  args: readonly Arg[],
  template: string,
): void {
  values.forEach((value, i) => {
    const problem = typeProblem(fn.params[i] ?? fn.variadic ?? 'any', value, args[i]);
    const arg = args[i];
    if (problem === undefined) return;
    if (arg === undefined) throw new ExecFailure(problem);
    throw new GoTemplateError(arg.at, `executing "${template}" at <${argText(arg)}>: ${problem}`);
  });
}

/**
 * What `range` visits: a list's (index, item), a map's (key, value) in key order, nothing for a
 * missing or nil value; undefined for a value it cannot iterate over.
 */
export function rangeEntries(value: GoValue): [GoValue, GoValue][] | undefined {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map((item: GoValue, i) => [i, item]);
  if (isMap(value)) return sortedKeys(value).map((key) => [key, value[key]]);
  return undefined;
}
