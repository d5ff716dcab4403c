/** One of a repository's webhooks, as far as replacing svc's needs. */
export interface ListedHook {
  id: number | string;
  url: string | undefined;
}

/**
 * Deletes every webhook of the repository that points at `url` (svc's): `list` reads the hooks,
 * `remove` deletes one by its id. None is not an error.
 */
export async function deleteHooksAt(
  url: string,
  list: () => Promise<readonly ListedHook[]>,
  remove: (id: ListedHook['id']) => Promise<void>,
): Promise<void> {
  for (const hook of await list()) {
    if (hook.url === url) await remove(hook.id);
  }
}
