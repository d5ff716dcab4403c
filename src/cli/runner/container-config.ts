import { readFileSync } from 'node:fs';
import type { RegistryPlugin } from '../../core/plugins.js';
import { parseDockerConfig, type RegistryAuth } from '../../pipeline/compile/registry.js';

/**
 * SVC_CONTAINER_CONFIG: the registry credentials of a Docker config.json, read once at start, used
 * for every build's images next to those of the registry plugin (the file's come first: a plugin
 * answer for the same registry is more specific and wins, as later credentials do in the compiler).
 * Throws a message naming the setting when the file cannot be read or is no config.json.
 */
export function withContainerConfig(
  file: string | null,
  plugin: RegistryPlugin | undefined,
): RegistryPlugin | undefined {
  if (file === null) return plugin;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`SVC_CONTAINER_CONFIG: cannot read ${file}: ${(error as Error).message}`);
  }
  let auths: RegistryAuth[];
  try {
    auths = parseDockerConfig(text);
  } catch (error) {
    throw new Error(`SVC_CONTAINER_CONFIG: ${file} ${(error as Error).message}`);
  }
  return {
    list: async (request) => [...auths, ...((await plugin?.list(request)) ?? [])],
  };
}
