import type { FuzzTarget } from '../target.js';
import { apiTarget } from './api.js';
import { rpcTarget } from './rpc.js';
import { lineSplitterTarget, maskerTarget } from './logs.js';
import { pipelineTarget } from './pipeline.js';
import { replayTarget } from './replay.js';
import { settingsTarget } from './settings.js';
import { signatureTarget } from './signature.js';
import { webhookTarget } from './webhooks.js';

export const TARGETS: readonly FuzzTarget[] = [
  pipelineTarget,
  settingsTarget,
  webhookTarget,
  lineSplitterTarget,
  maskerTarget,
  apiTarget,
  rpcTarget,
  replayTarget,
  signatureTarget,
];
