import { randomBytes } from 'node:crypto';
import type { WireDetails } from '../client/wire/index.js';

/** The prefix of every job ID the nomad runner submits: `GET /v1/jobs?prefix=` finds them. */
export const JOB_PREFIX = 'svc-stage-';
/** The Meta key naming the runner that submitted a job; leftovers are only its own. */
export const RUNNER_META = 'io.svc.runner';
/** The task group and task that run the stage. */
export const TASK = 'stage';
/** Where the docker driver's host has its Docker socket, and where the task sees it. */
const DOCKER_SOCKET = '/var/run/docker.sock';
/** Nomad durations are nanoseconds. */
const SECOND_NS = 1_000_000_000;

/** What shapes a stage's job besides the stage (SVC_JOB_*, SVC_TASK_*, the controller image). */
export interface StageJobSettings {
  /** SVC_RUNNER_NAME of the nomad runner: in Meta, and the name of the process in the task. */
  runner: string;
  /** The controller image (SVC_JOB_IMAGE): svc's own, whose `svc runner docker --stage ID` runs the stage. */
  image: string;
  datacenters: readonly string[];
  namespace: string;
  region: string;
  /** SVC_TASK_COMPUTE (MHz) and SVC_TASK_MEMORY (MB); null keeps Nomad's defaults. */
  compute: number | null;
  memory: number | null;
  /** The settings the controller needs (RPC, runner, container, plugin settings), as SVC_* variables. */
  env: Readonly<Record<string, string>>;
}

/** A fresh job ID for a stage: the prefix, the stage id, and random letters (a retried stage gets a new job). */
export function stageJobId(stageId: number): string {
  return `${JOB_PREFIX}${stageId}-${randomBytes(4).toString('hex')}`;
}

/**
 * The Nomad batch job that runs one stage, as Drone's Nomad runner submits it: one group, one
 * docker task running svc's image as `svc runner docker --stage <id>` with the host's Docker socket
 * mounted (so the stage's containers are the host's, next to the task), constrained to the
 * pipeline's platform (`${attr.kernel.name}`, `${attr.cpu.arch}`) and node labels (`${meta.*}`).
 * No restart and no reschedule: a second attempt at a half-run stage could repeat its deployments,
 * so a failed or lost allocation ends the stage as `error` instead.
 */
export function stageJob(
  jobId: string,
  details: WireDetails,
  settings: StageJobSettings,
): Record<string, unknown> {
  const { stage, build, repository } = details;
  const constraints = [
    ...(stage.os === '' ? [] : [{ LTarget: '${attr.kernel.name}', RTarget: stage.os, Operand: '=' }]),
    ...(stage.arch === '' ? [] : [{ LTarget: '${attr.cpu.arch}', RTarget: stage.arch, Operand: '=' }]),
    ...Object.entries(stage.labels ?? {}).map(([key, value]) => ({
      LTarget: `\${meta.${key}}`,
      RTarget: value,
      Operand: '=',
    })),
  ];
  const resources = {
    ...(settings.compute === null ? {} : { CPU: settings.compute }),
    ...(settings.memory === null ? {} : { MemoryMB: settings.memory }),
  };
  return {
    ID: jobId,
    Name: jobId,
    Type: 'batch',
    Datacenters: [...settings.datacenters],
    ...(settings.namespace === '' ? {} : { Namespace: settings.namespace }),
    ...(settings.region === '' ? {} : { Region: settings.region }),
    Meta: {
      'io.svc': 'true',
      [RUNNER_META]: settings.runner,
      'io.svc.repo': repository.slug,
      'io.svc.build.id': String(build.id),
      'io.svc.build.number': String(build.number),
      'io.svc.stage.id': String(stage.id),
      'io.svc.stage.number': String(stage.number),
      'io.svc.stage.name': stage.name,
    },
    Constraints: constraints,
    TaskGroups: [
      {
        Name: TASK,
        Count: 1,
        RestartPolicy: { Attempts: 0, Mode: 'fail' },
        ReschedulePolicy: { Attempts: 0, Unlimited: false },
        Tasks: [
          {
            Name: TASK,
            Driver: 'docker',
            // The host's Docker socket belongs to root; the image's own user could not use it.
            User: 'root',
            Config: {
              image: settings.image,
              args: ['runner', 'docker', '--stage', String(stage.id)],
              volumes: [`${DOCKER_SOCKET}:${DOCKER_SOCKET}`],
            },
            Env: {
              ...settings.env,
              SVC_RUNNER_NAME: settings.runner,
              DOCKER_HOST: `unix://${DOCKER_SOCKET}`,
            },
            ...(Object.keys(resources).length === 0 ? {} : { Resources: resources }),
            // Time for the controller to cancel the stage's containers and report the stage killed.
            KillTimeout: 30 * SECOND_NS,
          },
        ],
      },
    ],
  };
}
