import { Output, Scope, type ExecLimits } from './budget.js';
import { GoTemplateError } from './errors.js';
import { FuncError, type FuncContext, type FuncTable } from './funcs.js';
import {
  argText,
  commandText,
  type Arg,
  type Command,
  type ControlNode,
  type Node,
  pipeText,
  type Pipe,
  type TemplateNode,
  type Tree,
} from './nodes.js';
import { checkCount, checkTypes, ExecFailure, fieldOf, rangeEntries } from './access.js';
import { isTrue, printed, type GoValue } from './values.js';

/** No value was piped into a command. */
const NO_FINAL = Symbol('no final value');
type Final = GoValue | typeof NO_FINAL;

/** `{{break}}` and `{{continue}}`, on their way to the `range` they belong to. */
class BreakSignal extends Error {}
class ContinueSignal extends Error {}

/**
 * Runs a parsed template over `data` as Go's text/template executes it: fields of maps and
 * structs, variables and their scopes, pipelines with the previous command's value as the last
 * argument, `if`/`with`/`range` (maps in key order), `break`/`continue`, `template`/`block`, and
 * the functions of `funcs`. Bounded: a limit reached stops it with an error saying which.
 */
export class Executor {
  readonly #tree: Tree;
  readonly #funcs: FuncTable;
  readonly #limits: ExecLimits;
  readonly #context: FuncContext;
  #name: string;
  #out: Output;
  #depth = 0;
  #vars = new Scope(undefined);

  constructor(tree: Tree, name: string, funcs: FuncTable, limits: ExecLimits, now: () => number) {
    this.#tree = tree;
    this.#name = name;
    this.#funcs = funcs;
    this.#limits = limits;
    this.#out = new Output(limits);
    this.#context = { maxBytes: limits.outputBytes, now };
  }

  run(data: GoValue): string {
    this.#vars = new Scope(data);
    this.#walkList(data, this.#tree.root);
    return this.#out.text();
  }

  #walkList(dot: GoValue, nodes: readonly Node[]): void {
    for (const node of nodes) this.#walk(dot, node);
  }

  #walk(dot: GoValue, node: Node): void {
    this.#out.step(node.at);
    switch (node.kind) {
      case 'text':
        this.#out.write(node.text, node.at);
        return;
      case 'action': {
        const value = this.#evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.#out.write(printed(value), node.at);
        return;
      }
      case 'if':
      case 'with': {
        const mark = this.#vars.mark();
        const value = this.#evalPipeline(dot, node.pipe);
        if (isTrue(value)) this.#walkList(node.kind === 'with' ? value : dot, node.list);
        else if (node.elseList !== undefined) this.#walkList(dot, node.elseList);
        this.#vars.reset(mark);
        return;
      }
      case 'range':
        this.#range(dot, node);
        return;
      case 'template':
        this.#template(dot, node);
        return;
      case 'break':
        throw new BreakSignal();
      case 'continue':
        throw new ContinueSignal();
    }
  }

  #range(dot: GoValue, node: ControlNode): void {
    const mark = this.#vars.mark();
    const value = this.#evalPipeline(dot, node.pipe, false);
    const decl = node.pipe.decl;
    if (!node.pipe.isAssign) for (const name of decl) this.#vars.set(name, value, false);
    const entries = rangeEntries(value);
    if (entries === undefined)
      throw new GoTemplateError(
        node.pipe.at,
        `executing "${this.#name}" at <${pipeText(node.pipe)}>: range can't iterate over ${printed(value)}`,
      );
    if (entries.length === 0) {
      if (node.elseList !== undefined) this.#walkList(dot, node.elseList);
      this.#vars.reset(mark);
      return;
    }
    for (const [key, item] of entries) {
      this.#out.step(node.at);
      const inner = this.#vars.mark();
      const [first, second] = decl;
      if (decl.length === 1 && first !== undefined) this.#vars.set(first, item, node.pipe.isAssign);
      if (decl.length === 2 && first !== undefined && second !== undefined) {
        this.#vars.set(first, key, node.pipe.isAssign);
        this.#vars.set(second, item, node.pipe.isAssign);
      }
      try {
        this.#walkList(item, node.list);
      } catch (signal) {
        if (signal instanceof BreakSignal) break;
        if (!(signal instanceof ContinueSignal)) throw signal;
      } finally {
        this.#vars.reset(inner);
      }
    }
    this.#vars.reset(mark);
  }

  #template(dot: GoValue, node: TemplateNode): void {
    const body = this.#tree.defines.get(node.name);
    if (body === undefined) throw new GoTemplateError(node.at, `no such template "${node.name}"`);
    const newDot = node.pipe === undefined ? null : this.#evalPipeline(dot, node.pipe);
    if (this.#depth >= this.#limits.depth)
      throw new GoTemplateError(node.at, `exceeded maximum template depth (${this.#limits.depth})`);
    const [vars, name] = [this.#vars, this.#name];
    this.#depth++;
    this.#vars = new Scope(newDot);
    this.#name = node.name;
    try {
      this.#walkList(newDot, body);
    } finally {
      this.#depth--;
      this.#vars = vars;
      this.#name = name;
    }
  }

  #evalPipeline(dot: GoValue, pipe: Pipe, declare = true): GoValue {
    let value: Final = NO_FINAL;
    for (const cmd of pipe.cmds) value = this.#evalCommand(dot, cmd, value);
    const result = value === NO_FINAL ? undefined : value;
    if (declare) for (const name of pipe.decl) this.#vars.set(name, result, pipe.isAssign);
    return result;
  }

  #evalCommand(dot: GoValue, cmd: Command, final: Final): GoValue {
    this.#out.step(cmd.at);
    try {
      return this.#command(dot, cmd, final);
    } catch (error) {
      if (error instanceof ExecFailure)
        throw new GoTemplateError(
          cmd.at,
          `executing "${this.#name}" at <${commandText(cmd)}>: ${error.message}`,
        );
      throw error;
    }
  }

  #command(dot: GoValue, cmd: Command, final: Final): GoValue {
    const [head] = cmd.args;
    if (head === undefined) throw new ExecFailure('empty command');
    switch (head.kind) {
      case 'field':
        return this.#fieldChain(dot, dot, head.fields, cmd.args, final);
      case 'chain':
        return this.#fieldChain(dot, this.#evalArg(dot, head.node), head.fields, cmd.args, final);
      case 'identifier':
        return this.#call(dot, head.name, cmd.args, final);
      case 'variable':
        if (head.fields.length === 0) {
          this.#notAFunction(cmd.args, final);
          return this.#variable(head.name);
        }
        return this.#fieldChain(dot, this.#variable(head.name), head.fields, cmd.args, final);
      case 'pipe':
        this.#notAFunction(cmd.args, final);
        return this.#evalPipeline(dot, head.pipe);
      case 'nil':
        this.#notAFunction(cmd.args, final);
        throw new ExecFailure('nil is not a command');
      case 'bool':
      case 'dot':
      case 'number':
      case 'string':
        this.#notAFunction(cmd.args, final);
        return this.#evalArg(dot, head);
    }
  }

  #notAFunction(args: readonly Arg[], final: Final): void {
    if (args.length > 1 || final !== NO_FINAL)
      throw new ExecFailure(`can't give argument to non-function ${argText(args[0] as Arg)}`);
  }

  #variable(name: string): GoValue {
    const found = this.#vars.find(name);
    if (found === undefined) throw new ExecFailure(`undefined variable: ${name}`);
    return found.value;
  }

  /** An argument's value: not a command, so functions in it take no arguments. */
  #evalArg(dot: GoValue, arg: Arg): GoValue {
    switch (arg.kind) {
      case 'dot':
        return dot;
      case 'nil':
        return null;
      case 'string':
      case 'number':
      case 'bool':
        return arg.value;
      case 'field':
        return this.#fieldChain(dot, dot, arg.fields, [arg], NO_FINAL);
      case 'variable':
        return this.#fieldChain(dot, this.#variable(arg.name), arg.fields, [arg], NO_FINAL);
      case 'identifier':
        return this.#call(dot, arg.name, [arg], NO_FINAL);
      case 'chain':
        return this.#fieldChain(dot, this.#evalArg(dot, arg.node), arg.fields, [arg], NO_FINAL);
      case 'pipe':
        return this.#evalPipeline(dot, arg.pipe);
    }
  }

  #fieldChain(
    dot: GoValue,
    receiver: GoValue,
    fields: readonly string[],
    args: readonly Arg[],
    final: Final,
  ): GoValue {
    let value = receiver;
    fields.forEach((name, i) => {
      const last = i === fields.length - 1;
      value = this.#field(dot, name, last ? args : [], last ? final : NO_FINAL, value);
    });
    return value;
  }

  #field(dot: GoValue, name: string, args: readonly Arg[], final: Final, receiver: GoValue): GoValue {
    const hasArgs = args.length > 1 || final !== NO_FINAL;
    return fieldOf(receiver, name, hasArgs, () => {
      const values = args.slice(1).map((arg) => this.#evalArg(dot, arg));
      if (final !== NO_FINAL) values.push(final);
      return values;
    });
  }

  #call(dot: GoValue, name: string, args: readonly Arg[], final: Final): GoValue {
    const fn = this.#funcs.get(name);
    if (fn === undefined) throw new ExecFailure(`"${name}" is not a defined function`);
    const rest = args.slice(1);
    const count = rest.length + (final === NO_FINAL ? 0 : 1);
    checkCount(name, fn, count);
    if (name === 'and' || name === 'or') return this.#logic(dot, name, rest, final);
    const values = rest.map((arg) => this.#evalArg(dot, arg));
    if (final !== NO_FINAL) values.push(final);
    checkTypes(fn, values, rest, this.#name);
    try {
      return fn.call(values, this.#context);
    } catch (error) {
      if (error instanceof FuncError) throw new ExecFailure(`error calling ${name}: ${error.message}`);
      throw error;
    }
  }

  /** Go 1.18's `and` and `or`: arguments evaluated left to right until one decides. */
  #logic(dot: GoValue, name: 'and' | 'or', args: readonly Arg[], final: Final): GoValue {
    let value: GoValue = undefined;
    const all: (Arg | { final: GoValue })[] = [...args];
    if (final !== NO_FINAL) all.push({ final });
    for (const arg of all) {
      value = 'final' in arg ? arg.final : this.#evalArg(dot, arg);
      if (isTrue(value) === (name === 'or')) return value;
    }
    return value;
  }
}
