import type { FuzzTarget } from '../target.js';
import { lineSplitterTarget, maskerTarget } from './logs.js';
import { pipelineTarget } from './pipeline.js';
import { settingsTarget } from './settings.js';
import { webhookTarget } from './webhooks.js';

export const TARGETS: readonly FuzzTarget[] = [
  pipelineTarget,
  settingsTarget,
  webhookTarget,
  lineSplitterTarget,
  maskerTarget,
];
