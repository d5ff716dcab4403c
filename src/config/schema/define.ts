import type { SettingsKind } from '../kinds.js';
import type { Codec, ParseContext, Parsed } from '../values/codec.js';

/**
 * One setting of the schema. The type parameters keep what `SettingsOf` needs: the name, the kinds
 * accepting it, its value type, and whether it always has a value (required, defaulted or computed).
 */
export interface SettingDef<
  N extends string = string,
  K extends SettingsKind = SettingsKind,
  T = unknown,
  A extends boolean = boolean,
> {
  readonly name: N;
  readonly kinds: readonly K[];
  readonly codec: Codec<T>;
  readonly required: boolean;
  /** The value when unset; undefined when there is none. */
  readonly default: T | undefined;
  /** Computes the value when unset, for defaults that depend on another setting. */
  readonly whenUnset: ((ctx: ParseContext) => Parsed<T>) | undefined;
  /** What docs say about the default when `default` alone cannot say it. */
  readonly defaultDoc: string | undefined;
  /** Printed as "[redacted]" (or the codec's partial redaction). */
  readonly secret: boolean;
  /** An svc addition: not in the spec. */
  readonly addition: boolean;
  /** What the setting does, in docs. */
  readonly description: string;
  /** Type-level only: true when the value is never null. */
  readonly alwaysSet?: A;
}

/** The optional parts of a setting row; `default`, `required` or `whenUnset` make its value non-null. */
export interface SettingOptions<T> {
  readonly description: string;
  readonly default?: T;
  readonly required?: true;
  readonly whenUnset?: (ctx: ParseContext) => Parsed<T>;
  readonly defaultDoc?: string;
  readonly secret?: true;
  readonly addition?: true;
}

type AlwaysSet<O> = O extends { required: true } | { default: unknown } | { whenUnset: unknown }
  ? true
  : false;

/** Declares one setting; schema rows read `setting(name, kinds, codec, { description, default, … })`. */
export function setting<
  const N extends string,
  const K extends SettingsKind,
  T,
  const O extends SettingOptions<T>,
>(name: N, kinds: readonly K[], codec: Codec<T>, options: O): SettingDef<N, K, T, AlwaysSet<O>> {
  return {
    name,
    kinds,
    codec,
    required: options.required === true,
    default: options.default,
    whenUnset: options.whenUnset,
    defaultDoc: options.defaultDoc,
    secret: options.secret === true,
    addition: options.addition === true,
    description: options.description,
  };
}

/** A titled part of the schema: one section of docs/settings.md. */
export interface SettingGroup<S extends readonly SettingDef[] = readonly SettingDef[]> {
  readonly title: string;
  /** A sentence introducing the section in docs. */
  readonly intro: string;
  readonly settings: S;
}

/** Declares a part of the schema, keeping the exact types of its rows. */
export function group<const S extends readonly SettingDef[]>(
  title: string,
  intro: string,
  settings: S,
): SettingGroup<S> {
  return { title, intro, settings };
}
