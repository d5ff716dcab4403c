import { Document } from 'yaml';

/**
 * The documents a configuration program produced, as the YAML text that svc stores and parses.
 * Written for YAML 1.1 (the version pipeline files are read with), so that a string such as "yes"
 * or "0755" stays quoted and reads back as the same string; long lines are never folded.
 */
export function documentsToYaml(documents: readonly unknown[]): string {
  return documents
    .map((value) => new Document(value, { version: '1.1' }).toString({ lineWidth: 0 }))
    .map((text) => `---\n${text}`)
    .join('');
}
