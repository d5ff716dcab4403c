/**
 * The part of @hanazuki/node-jsonnet 2.1 that svc uses. The package's own declarations cannot be
 * resolved through its "exports" map, and name the stack setter maxStack where 2.1 ships setMaxStack.
 */
declare module '@hanazuki/node-jsonnet' {
  export class Jsonnet {
    setMaxStack(depth: number): this;
    setMaxTrace(lines: number): this;
    extString(name: string, value: string): this;
    addJpath(path: string): this;
    evaluateFile(file: string): Promise<string>;
  }
}
