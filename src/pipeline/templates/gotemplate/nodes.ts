import type { Where } from './errors.js';

/* The parse tree of a template, shaped as Go's text/template/parse names it. */

export type Node =
  | { readonly kind: 'text'; readonly at: Where; readonly text: string }
  | { readonly kind: 'action'; readonly at: Where; readonly pipe: Pipe }
  | ControlNode
  | TemplateNode
  | { readonly kind: 'break' | 'continue'; readonly at: Where };

/** `{{if}}`, `{{with}}`, `{{range}}`: a pipeline, a body, and what `{{else}}` holds. */
export interface ControlNode {
  readonly kind: 'if' | 'with' | 'range';
  readonly at: Where;
  readonly pipe: Pipe;
  readonly list: Node[];
  readonly elseList: Node[] | undefined;
}

/** `{{template "name" pipeline}}` (and the call a `{{block}}` makes). */
export interface TemplateNode {
  readonly kind: 'template';
  readonly at: Where;
  readonly name: string;
  readonly pipe: Pipe | undefined;
}

/** `$x := cmd | cmd …`: the declared or assigned variables, then the commands. */
export interface Pipe {
  readonly at: Where;
  readonly decl: readonly string[];
  readonly isAssign: boolean;
  readonly cmds: readonly Command[];
}

/** One stage of a pipeline: a function, field or method with its arguments, or a value. */
export interface Command {
  readonly at: Where;
  readonly args: readonly Arg[];
}

export type Arg =
  | { readonly kind: 'field'; readonly at: Where; readonly fields: readonly string[] }
  | {
      readonly kind: 'variable';
      readonly at: Where;
      readonly name: string;
      readonly fields: readonly string[];
    }
  | { readonly kind: 'dot'; readonly at: Where }
  | { readonly kind: 'identifier'; readonly at: Where; readonly name: string }
  | { readonly kind: 'chain'; readonly at: Where; readonly node: Arg; readonly fields: readonly string[] }
  | { readonly kind: 'pipe'; readonly at: Where; readonly pipe: Pipe }
  | { readonly kind: 'string'; readonly at: Where; readonly value: string }
  | { readonly kind: 'number'; readonly at: Where; readonly value: number; readonly text: string }
  | { readonly kind: 'bool'; readonly at: Where; readonly value: boolean }
  | { readonly kind: 'nil'; readonly at: Where };

/** The template as written: its body and the templates it defines (`define`, `block`). */
export interface Tree {
  readonly root: Node[];
  readonly defines: ReadonlyMap<string, Node[]>;
}

/** An argument as Go prints it in messages (`at <.input.name>`). */
export function argText(arg: Arg): string {
  switch (arg.kind) {
    case 'field':
      return arg.fields.map((f) => `.${f}`).join('');
    case 'variable':
      return arg.name + arg.fields.map((f) => `.${f}`).join('');
    case 'dot':
      return '.';
    case 'identifier':
      return arg.name;
    case 'chain':
      return (
        (arg.node.kind === 'pipe' ? `(${argText(arg.node)})` : argText(arg.node)) +
        arg.fields.map((f) => `.${f}`).join('')
      );
    case 'pipe':
      return pipeText(arg.pipe);
    case 'string':
      return JSON.stringify(arg.value);
    case 'number':
      return arg.text;
    case 'bool':
      return String(arg.value);
    case 'nil':
      return 'nil';
  }
}

export function commandText(command: Command): string {
  return command.args.map((arg) => (arg.kind === 'pipe' ? `(${argText(arg)})` : argText(arg))).join(' ');
}

export function pipeText(pipe: Pipe): string {
  const decl = pipe.decl.length === 0 ? '' : `${pipe.decl.join(', ')} ${pipe.isAssign ? '=' : ':='} `;
  return decl + pipe.cmds.map(commandText).join(' | ');
}
