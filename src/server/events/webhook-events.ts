import type { Build } from '../../core/build.js';
import type { BuildListener, SystemEvent, SystemEvents } from '../../core/events.js';
import type { Repo } from '../../core/repo.js';
import type { Stage } from '../../core/stage.js';
import type { UserStore } from '../../core/user.js';
import { buildJson } from '../api/json/build.js';
import { repoJson } from '../api/json/repo.js';
import { userJson } from '../api/json/user.js';

/** What the events are sent through: WebhookSender, or a recorder in tests. */
export interface EventSink {
  send(kind: string, payload: unknown): void;
}

export interface WebhookEventsOptions {
  sink: EventSink;
  /** SVC_WEBHOOK_EVENTS: kinds (`build`) and kind:action pairs (`build:created`). */
  selected: readonly string[];
  system: { proto: string; host: string; version: string };
  /** Finds the owner of a repository, whom build events name as their user, as Drone does. */
  users: Pick<UserStore, 'find'>;
}

/**
 * Global system events in Drone's webhook format — `{event, action, user?, repo?, build?,
 * system}`, the objects shaped as Drone's API shows them — for the kinds and actions
 * SVC_WEBHOOK_EVENTS selects. A build's first announcement is `build:created`, every later change
 * `build:updated`.
 */
export class WebhookEvents implements SystemEvents, BuildListener {
  readonly #options: WebhookEventsOptions;
  readonly #selected: ReadonlySet<string>;
  readonly #system: Record<string, string>;

  constructor(options: WebhookEventsOptions) {
    this.#options = options;
    this.#selected = new Set(options.selected.map((entry) => entry.toLowerCase()));
    const { proto, host, version } = options.system;
    this.#system = { proto, host, link: `${proto}://${host}`, version };
  }

  /** True when SVC_WEBHOOK_EVENTS selects the kind, or this action of it. */
  selects(kind: string, action: string): boolean {
    return this.#selected.has(kind) || this.#selected.has(`${kind}:${action}`);
  }

  emit(event: SystemEvent): void {
    if (!this.selects(event.kind, event.action)) return;
    const subject = event.kind === 'user' ? { user: userJson(event.user) } : { repo: repoJson(event.repo) };
    this.#options.sink.send(event.kind, {
      event: event.kind,
      action: event.action,
      ...subject,
      system: this.#system,
    });
  }

  async buildUpdated(change: {
    repo: Repo;
    build: Build;
    stages: Stage[];
    created?: boolean;
  }): Promise<void> {
    const action = change.created === true ? 'created' : 'updated';
    if (!this.selects('build', action)) return;
    const owner = await this.#options.users.find(change.repo.userId);
    this.#options.sink.send('build', {
      event: 'build',
      action,
      ...(owner === undefined ? {} : { user: userJson(owner) }),
      repo: repoJson(change.repo),
      build: buildJson(change.build, change.stages),
      system: this.#system,
    });
  }
}
