/** What `svc migrate drone` brings across, in the order it does. */
export const KINDS = [
  'users',
  'repositories',
  'permissions',
  'secrets',
  'organization secrets',
  'cron jobs',
  'templates',
  'builds',
  'logs',
] as const;
export type Kind = (typeof KINDS)[number];

interface Counts {
  imported: number;
  present: number;
  skipped: number;
}

/** One item left behind: which, and why (names only: a secret's value never appears here). */
export interface Skipped {
  readonly kind: Kind;
  readonly item: string;
  readonly why: string;
}

/** Counts per kind and every item skipped, for the summary at the end and the progress lines. */
export class ImportReport {
  readonly #counts = new Map<Kind, Counts>();
  readonly #skipped: Skipped[] = [];
  readonly #notes: string[] = [];

  imported(kind: Kind, count = 1): void {
    this.#count(kind).imported += count;
  }

  /** Already in svc (from an earlier run, or matched by the provider's id): left as it is. */
  present(kind: Kind, count = 1): void {
    this.#count(kind).present += count;
  }

  skipped(kind: Kind, item: string, why: string): void {
    this.#count(kind).skipped += 1;
    this.#skipped.push({ kind, item, why });
  }

  /** Something an item brought across goes without (a provider token that did not decrypt). */
  note(text: string): void {
    this.#notes.push(text);
  }

  counts(kind: Kind): Readonly<Counts> {
    return { ...this.#count(kind) };
  }

  get skippedItems(): readonly Skipped[] {
    return this.#skipped;
  }

  get notes(): readonly string[] {
    return this.#notes;
  }

  /** One line per kind: `secrets: 3 imported, 1 already present, 1 skipped`. */
  line(kind: Kind): string {
    const { imported, present, skipped } = this.#count(kind);
    return `${kind}: ${imported} imported, ${present} already present, ${skipped} skipped`;
  }

  /** The summary: a table of counts, then each skipped item with why. */
  render(kinds: readonly Kind[]): string {
    const width = Math.max(...kinds.map((kind) => kind.length));
    const rows = kinds.map((kind) => {
      const { imported, present, skipped } = this.#count(kind);
      return `  ${kind.padEnd(width)}  ${pad(imported, 8)}  ${pad(present, 15)}  ${pad(skipped, 7)}`;
    });
    const lines = [`  ${''.padEnd(width)}  imported  already present  skipped`, ...rows];
    if (this.#skipped.length > 0) {
      lines.push('', 'Skipped:');
      for (const { kind, item, why } of this.#skipped) lines.push(`  ${singular(kind)} ${item}: ${why}`);
    }
    if (this.#notes.length > 0) lines.push('', 'Notes:', ...this.#notes.map((note) => `  ${note}`));
    return `${lines.join('\n')}\n`;
  }

  #count(kind: Kind): Counts {
    let counts = this.#counts.get(kind);
    if (counts === undefined) {
      counts = { imported: 0, present: 0, skipped: 0 };
      this.#counts.set(kind, counts);
    }
    return counts;
  }
}

function pad(value: number, width: number): string {
  return String(value).padStart(width);
}

function singular(kind: Kind): string {
  switch (kind) {
    case 'users':
      return 'user';
    case 'repositories':
      return 'repository';
    case 'permissions':
      return 'permission';
    case 'secrets':
      return 'secret';
    case 'organization secrets':
      return 'organization secret';
    case 'cron jobs':
      return 'cron job';
    case 'templates':
      return 'template';
    case 'builds':
      return 'build';
    case 'logs':
      return 'logs of';
  }
}
