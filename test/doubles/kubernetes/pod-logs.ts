/*
 * GET /api/v1/namespaces/{ns}/pods/{name}/log: the API server's checks (a container name is required
 * when the pod has several; the pod must be on a node), then the kubelet's choice of instance
 * (validateContainerLogStatus: `previous` → the last terminated instance; else the running one, the
 * terminated one, or the previous one; a container that never ran is a 400 naming why it waits), then
 * Docker's log of that container: stdout and stderr interleaved as written, `text/plain`, streamed.
 * `follow` streams until that instance exits (a replaced instance is stopped first, so its stream ends);
 * `timestamps` (RFC 3339 with nanoseconds), `tailLines`, `sinceSeconds`, `sinceTime` and `limitBytes`
 * are honoured.
 */
import { Demuxer } from '../../../src/engines/docker/demux.js';
import type { ApiContext } from './api-context.js';
import { badRequest, invalid, FieldError, notFound } from './errors.js';
import { queryFlag, type ApiRequest, type Reply } from './server.js';
import type { ContainerStatus, Pod } from './types.js';

export async function podLogs(ctx: ApiContext, request: ApiRequest): Promise<Reply> {
  const [namespace = '', name = ''] = request.params;
  const pod = ctx.cluster.pod(namespace, name);
  if (pod === undefined) throw notFound('pods', name);
  const { query } = request;
  const container = containerName(pod, query.get('container') ?? '');
  const options = logOptions(query);
  if (pod.spec.nodeName === undefined) throw badRequest(`pod ${name} does not have a host assigned`);
  const statuses = [...(pod.status.initContainerStatuses ?? []), ...(pod.status.containerStatuses ?? [])];
  const status = statuses.find((s) => s.name === container);
  const dockerId = chooseInstance(status, container, name, queryFlag(query, 'previous'));

  const abort = new AbortController();
  let stream;
  try {
    stream = await ctx.engine.logs(dockerId, options.docker, abort.signal);
  } catch (error) {
    throw badRequest(
      `failed to get the log of container "${container}" in pod "${name}": ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const { res } = request;
  res.writeHead(200, {
    'Content-Type': 'text/plain',
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();
  ctx.streams.add(res);
  let budget = options.limitBytes ?? Infinity;
  const finish = () => {
    abort.abort();
    if (!res.writableEnded) res.end();
  };
  const demuxer = new Demuxer((_stream, payload) => {
    if (budget <= 0) return;
    const part = payload.length > budget ? payload.subarray(0, budget) : payload;
    budget -= part.length;
    res.write(part);
    if (budget <= 0) finish();
  });
  stream.on('data', (chunk: Buffer) => demuxer.write(chunk));
  stream.on('end', finish);
  stream.on('error', finish);
  res.on('error', finish);
  res.once('close', () => {
    abort.abort();
    ctx.streams.delete(res);
  });
  return 'streamed';
}

function containerName(pod: Pod, asked: string): string {
  const podName = pod.metadata.name ?? '';
  const names = pod.spec.containers.map((c) => c.name);
  const initNames = (pod.spec.initContainers ?? []).map((c) => c.name);
  if (asked === '') {
    if (names.length === 1) return names[0] ?? '';
    if (names.length === 0) throw badRequest(`pod ${podName} does not have a container`);
    let message = `a container name must be specified for pod ${podName}, choose one of: [${names.join(' ')}]`;
    if (initNames.length > 0) message += ` or one of the init containers: [${initNames.join(' ')}]`;
    throw badRequest(message);
  }
  if (!names.includes(asked) && !initNames.includes(asked)) {
    throw badRequest(`container ${asked} is not valid for pod ${podName}`);
  }
  return asked;
}

/** The Docker id of the instance whose log is asked for, or the kubelet's 400. */
function chooseInstance(
  status: ContainerStatus | undefined,
  container: string,
  pod: string,
  previous: boolean,
): string {
  const fail = (why: string) => badRequest(`container "${container}" in pod "${pod}" ${why}`);
  if (status === undefined) throw fail('is not available');
  const { waiting, running, terminated } = status.state;
  const last = status.lastState.terminated;
  let id: string | undefined;
  if (previous) {
    if (last === undefined)
      throw badRequest(`previous terminated container "${container}" in pod "${pod}" not found`);
    id = last.containerID;
  } else if (running !== undefined) {
    id = status.containerID;
  } else if (terminated !== undefined) {
    id = terminated.containerID;
  } else if (last !== undefined) {
    id = last.containerID;
  } else if (waiting !== undefined) {
    if (waiting.reason === 'ErrImagePull') throw fail("is waiting to start: image can't be pulled");
    if (waiting.reason === 'ImagePullBackOff')
      throw fail('is waiting to start: trying and failing to pull image');
    throw fail(`is waiting to start: ${waiting.reason}`);
  } else {
    throw fail('is waiting to start - no logs yet');
  }
  if (id === undefined || id === '') throw fail('is terminated');
  return id.replace(/^docker:\/\//, '');
}

function logOptions(query: URLSearchParams) {
  const errors: FieldError[] = [];
  const number = (key: string, minimum: number): number | undefined => {
    const text = query.get(key);
    if (text === null || text === '') return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < minimum) {
      errors.push(
        new FieldError(
          key,
          'Invalid',
          `must be greater than ${minimum === 0 ? 'or equal to 0' : minimum - 1}`,
          value,
        ),
      );
    }
    return value;
  };
  const tailLines = number('tailLines', 0);
  const limitBytes = number('limitBytes', 1);
  const sinceSeconds = number('sinceSeconds', 1);
  const sinceTime = query.get('sinceTime');
  if (sinceSeconds !== undefined && sinceTime !== null && sinceTime !== '') {
    errors.push(
      new FieldError('', 'Forbidden', 'at most one of `sinceTime` or `sinceSeconds` may be specified'),
    );
  }
  if (errors.length > 0) throw invalid('PodLogOptions', '', errors);
  let since: number | undefined;
  if (sinceSeconds !== undefined) since = Date.now() / 1000 - sinceSeconds;
  else if (sinceTime !== null && sinceTime !== '' && !Number.isNaN(Date.parse(sinceTime)))
    since = Date.parse(sinceTime) / 1000;
  return {
    limitBytes,
    docker: {
      follow: queryFlag(query, 'follow'),
      timestamps: queryFlag(query, 'timestamps'),
      ...(tailLines === undefined ? {} : { tail: tailLines }),
      ...(since === undefined ? {} : { since }),
    },
  };
}
