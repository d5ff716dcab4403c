import { globMatch } from '../../pipeline/match/glob.js';

/** Which repositories may use each restricted namespace: patterns, and where the rule comes from. */
export type NamespaceRules = ReadonlyMap<string, { patterns: readonly string[]; source: string }>;

/**
 * The rules of SVC_NAMESPACE_RULES_FILE, then SVC_NAMESPACE_RULES (`namespace:pattern` entries), which
 * replaces the file's rule of the same namespace, as Drone's runner loads them.
 */
export function namespaceRules(
  file: { path: string; rules: Readonly<Record<string, readonly string[]>> } | null,
  entries: Readonly<Record<string, string>> | null,
): NamespaceRules {
  const rules = new Map<string, { patterns: readonly string[]; source: string }>();
  for (const [namespace, patterns] of Object.entries(file?.rules ?? {}))
    rules.set(namespace, { patterns, source: `SVC_NAMESPACE_RULES_FILE (${file?.path ?? ''})` });
  for (const [namespace, pattern] of Object.entries(entries ?? {}))
    rules.set(namespace, { patterns: [pattern], source: 'SVC_NAMESPACE_RULES' });
  return rules;
}

/**
 * Why a repository may not use the namespace its pipeline names, naming the rule; undefined when it
 * may (no rule for the namespace, or the repository matches one of its patterns).
 */
export function namespaceRefusal(rules: NamespaceRules, namespace: string, repo: string): string | undefined {
  const rule = rules.get(namespace);
  if (rule === undefined || rule.patterns.some((pattern) => globMatch(pattern, repo))) return undefined;
  return `the pipeline may not use the namespace "${namespace}": ${rule.source} allows it only to ${rule.patterns.join(', ')}, not to ${repo}`;
}
