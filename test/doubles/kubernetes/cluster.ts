/*
 * The double's object store, as etcd behind the API server: namespaces, secrets and pods keyed by
 * `namespace/name`, one global resourceVersion counter (a string on the wire) bumped by every write,
 * and a bounded history of change events that watches replay from a resourceVersion. Stored objects are
 * frozen: a writer copies, changes and puts back, so a reader (a watch being written, a kubelet sync)
 * never sees an object change under it.
 */
import type { KubeObject, Namespace, Pod, Secret } from './types.js';

export type Resource = 'pods' | 'secrets' | 'namespaces';
export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  readonly resourceVersion: number;
  readonly resource: Resource;
  readonly type: EventType;
  readonly object: KubeObject;
  /** The object before a MODIFIED change: a watch with a selector turns "no longer matches" into DELETED. */
  readonly previous?: KubeObject;
}

export const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;

export class Cluster {
  private revision = 100;
  private readonly objects: Record<Resource, Map<string, KubeObject>> = {
    pods: new Map(),
    secrets: new Map(),
    namespaces: new Map(),
  };
  private history: StoredEvent[] = [];
  /** The oldest resourceVersion the history still holds events after (anything older is compacted). */
  private compactedAt = 0;
  private readonly listeners = new Set<(event: StoredEvent) => void>();

  constructor(private readonly historyLimit: number) {}

  /** The current resourceVersion, what a list answers in `metadata.resourceVersion`. */
  get resourceVersion(): string {
    return String(this.revision);
  }

  namespace(name: string): Namespace | undefined {
    return this.objects.namespaces.get(name) as Namespace | undefined;
  }

  secret(namespace: string, name: string): Secret | undefined {
    return this.objects.secrets.get(keyOf(namespace, name)) as Secret | undefined;
  }

  pod(namespace: string, name: string): Pod | undefined {
    return this.objects.pods.get(keyOf(namespace, name)) as Pod | undefined;
  }

  /** Objects of a resource, in one namespace or all, oldest first (creation order). */
  list<T extends KubeObject>(resource: Resource, namespace?: string): T[] {
    const all = [...this.objects[resource].values()] as T[];
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }

  /** Stores `object` with the next resourceVersion (ADDED when new, else MODIFIED) and returns it frozen. */
  put<T extends KubeObject>(resource: Resource, object: T): T {
    const key = this.keyFor(resource, object);
    const previous = this.objects[resource].get(key);
    this.revision += 1;
    const stored = deepFreeze({
      ...object,
      metadata: { ...object.metadata, resourceVersion: String(this.revision) },
    });
    this.objects[resource].set(key, stored);
    this.record(
      previous === undefined
        ? { resourceVersion: this.revision, resource, type: 'ADDED', object: stored }
        : { resourceVersion: this.revision, resource, type: 'MODIFIED', object: stored, previous },
    );
    return stored;
  }

  /** Removes an object; its DELETED event carries it with the resourceVersion of the deletion. */
  remove(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined {
    const key = namespace === undefined ? name : keyOf(namespace, name);
    const current = this.objects[resource].get(key);
    if (current === undefined) return undefined;
    this.objects[resource].delete(key);
    this.revision += 1;
    const object = deepFreeze({
      ...current,
      metadata: { ...current.metadata, resourceVersion: String(this.revision) },
    });
    this.record({ resourceVersion: this.revision, resource, type: 'DELETED', object });
    return object;
  }

  /** Calls `listener` with every event from now on; returns the unsubscribe function. */
  subscribe(listener: (event: StoredEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The events after `resourceVersion`, or `expired` with the oldest resourceVersion one can still
   * watch from when the history no longer reaches back that far.
   */
  eventsAfter(resourceVersion: number): StoredEvent[] | { expired: true; oldest: number } {
    if (resourceVersion < this.compactedAt) return { expired: true, oldest: this.compactedAt };
    return this.history.filter((e) => e.resourceVersion > resourceVersion);
  }

  /** Forgets the whole history, as an etcd compaction would (tests use it to provoke 410 Gone). */
  compact(): void {
    this.history = [];
    this.compactedAt = this.revision;
  }

  private record(event: StoredEvent): void {
    this.history.push(event);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit);
      this.compactedAt = dropped.at(-1)?.resourceVersion ?? this.compactedAt;
    }
    for (const listener of this.listeners) listener(event);
  }

  private keyFor(resource: Resource, object: KubeObject): string {
    const name = object.metadata.name ?? '';
    return resource === 'namespaces' ? name : keyOf(object.metadata.namespace ?? '', name);
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** A mutable deep copy of a stored (frozen) object. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}
