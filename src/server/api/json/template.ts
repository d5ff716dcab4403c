import type { Template } from '../../../core/template.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A template as Drone's API shows it: its text included, times in epoch seconds. */
export function templateJson(template: Template): Record<string, unknown> {
  return {
    id: template.id,
    namespace: template.namespace,
    name: template.name,
    data: template.data,
    created: seconds(template.created),
    updated: seconds(template.updated),
  };
}
