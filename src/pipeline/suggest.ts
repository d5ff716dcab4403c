import { closestName, editDistance } from '../config/suggest.js';

/**
 * The candidate a misspelt name most likely meant, if any. Short names are all "close" to each
 * other by edit distance, so a suggestion must keep more of the name than it changes.
 */
export function suggestName(name: string, candidates: readonly string[]): string | undefined {
  const candidate = closestName(name, candidates);
  if (candidate === undefined) return undefined;
  return editDistance(name, candidate) < Math.min(name.length, candidate.length) ? candidate : undefined;
}
