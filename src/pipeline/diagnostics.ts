/** A place in a pipeline file: 1-based line and column. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** Where each field of a decoded object is in the file, by key (list items as `key[i]`). */
export type Locations = Readonly<Record<string, Position>>;

/** Errors make a file invalid; warnings (unknown fields, doubtful combinations) do not. */
export type Severity = 'error' | 'warning';

/**
 * One finding about a pipeline file. `field` is the YAML path of what it is about (`steps[1].image`),
 * empty when it is about a whole document or the file; `message` says what is wrong and what is expected.
 */
export interface Diagnostic {
  readonly severity: Severity;
  readonly line: number;
  readonly column: number;
  readonly field: string;
  readonly message: string;
}

/** The message as users read it: the field first, then what is wrong. */
export function diagnosticText(diagnostic: Diagnostic): string {
  return diagnostic.field === '' ? diagnostic.message : `${diagnostic.field}: ${diagnostic.message}`;
}

/** Orders diagnostics as they appear in the file. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort((a, b) => a.line - b.line || a.column - b.column);
}

/**
 * Collects the diagnostics of one file. A node reached through several YAML aliases is checked once per
 * use; the same finding at the same place is kept once, under the first field path that reached it.
 */
export class Diagnostics {
  readonly #seen = new Set<string>();
  readonly #list: Diagnostic[] = [];

  error(at: Position, field: string, message: string): void {
    this.#add({ severity: 'error', line: at.line, column: at.column, field, message });
  }

  warning(at: Position, field: string, message: string): void {
    this.#add({ severity: 'warning', line: at.line, column: at.column, field, message });
  }

  /** Another collection's findings, as if found here. */
  addAll(diagnostics: readonly Diagnostic[]): void {
    for (const diagnostic of diagnostics) this.#add(diagnostic);
  }

  hasErrors(): boolean {
    return this.#list.some((diagnostic) => diagnostic.severity === 'error');
  }

  /** Everything collected so far, in file order. */
  list(): Diagnostic[] {
    return sortDiagnostics(this.#list);
  }

  #add(diagnostic: Diagnostic): void {
    const key = `${diagnostic.severity}|${diagnostic.line}|${diagnostic.column}|${diagnostic.message}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.#list.push(diagnostic);
  }
}
