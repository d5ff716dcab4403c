import type { IncomingMessage } from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import { DockerApiError } from './errors.js';
import { jsonLines } from './json-lines.js';
import { Transport, type Endpoint } from './transport.js';
import type {
  ContainerCreateOptions,
  ContainerInspect,
  ContainerSummary,
  ContainerWaitResponse,
  Filters,
  Labels,
  EndpointSettings,
  NetworkInspect,
  NetworkSummary,
  PullEvent,
  RegistryAuth,
  VersionInfo,
  VolumeSummary,
} from './types.js';

/**
 * The Docker Engine API calls svc makes, one method per endpoint. Errors are `DockerApiError`s
 * carrying the HTTP status; every call takes an optional abort signal.
 */
export class DockerClient {
  private readonly http: Transport;

  constructor(endpoint: Endpoint) {
    this.http = new Transport(endpoint);
  }

  /** Where this client connects (for messages and tests). */
  get endpoint(): Endpoint {
    return this.http.endpoint;
  }

  async version(signal?: AbortSignal): Promise<VersionInfo> {
    return this.http.json('GET', '/version', { signal });
  }

  /** The API version svc speaks to this engine (its newest up to 1.41, or its oldest above). */
  apiVersion(signal?: AbortSignal): Promise<string> {
    return this.http.apiVersion(signal);
  }

  async ping(signal?: AbortSignal): Promise<void> {
    await this.http.empty('GET', '/_ping', { signal });
  }

  async createContainer(options: ContainerCreateOptions, signal?: AbortSignal): Promise<{ Id: string }> {
    const { name, ...body } = options;
    return this.http.json('POST', '/containers/create', { query: { name }, body, signal });
  }

  async startContainer(id: string, signal?: AbortSignal): Promise<void> {
    await this.http.empty('POST', `/containers/${id}/start`, { signal });
  }

  /** Waits until the container is not running (it may have exited already) and returns its status. */
  async waitContainer(id: string, signal?: AbortSignal): Promise<ContainerWaitResponse> {
    return this.http.json('POST', `/containers/${id}/wait`, { signal });
  }

  async inspectContainer(id: string, signal?: AbortSignal): Promise<ContainerInspect> {
    return this.http.json('GET', `/containers/${id}/json`, { signal });
  }

  async killContainer(id: string, signal?: AbortSignal): Promise<void> {
    await this.http.empty('POST', `/containers/${id}/kill`, { signal });
  }

  /** Removes a container; `force` kills it first, `volumes` removes its anonymous volumes too. */
  async removeContainer(id: string, options: { force?: boolean; volumes?: boolean } = {}): Promise<void> {
    const query = { force: options.force, v: options.volumes };
    await this.http.empty('DELETE', `/containers/${id}`, { query });
  }

  /**
   * Attaches to the container's stdout and stderr: the raw multiplexed stream (see ../demux.ts) on
   * a hijacked connection, which ends when the container's output closes. Attach before starting
   * the container, and no output is missed.
   */
  attachContainer(id: string, signal?: AbortSignal): Promise<Duplex> {
    const query = { stream: true, stdout: true, stderr: true };
    return this.http.upgrade('POST', `/containers/${id}/attach`, { query, signal });
  }

  /** The container's logs so far, and then as they come with `follow` (multiplexed stream). */
  containerLogs(
    id: string,
    options: { follow?: boolean; signal?: AbortSignal } = {},
  ): Promise<IncomingMessage> {
    const query = { follow: options.follow, stdout: true, stderr: true };
    return this.http.send('GET', `/containers/${id}/logs`, { query, signal: options.signal });
  }

  /**
   * Extracts a tar into the container's filesystem at `path` (a folder), as `docker cp` does; the
   * container may be created and not started. PUT /containers/{id}/archive.
   */
  async putArchive(id: string, path: string, tar: Readable, signal?: AbortSignal): Promise<void> {
    const answer = await this.http.sendStream('PUT', `/containers/${id}/archive`, tar, {
      query: { path },
      contentType: 'application/x-tar',
      signal,
    });
    answer.resume();
  }

  /**
   * A tar of the file or folder at `path` in the container (running or exited), its entries named
   * from the path's last segment; undefined when there is nothing there. GET /containers/{id}/archive.
   */
  async getArchive(id: string, path: string, signal?: AbortSignal): Promise<Readable | undefined> {
    try {
      return await this.http.send('GET', `/containers/${id}/archive`, { query: { path }, signal });
    } catch (error) {
      if (error instanceof DockerApiError && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  async listContainers(filters: Filters): Promise<ContainerSummary[]> {
    const query = { all: true, filters: JSON.stringify(filters) };
    return this.http.json('GET', '/containers/json', { query });
  }

  async createNetwork(
    body: { Name: string; Driver?: string; Labels?: Labels },
    signal?: AbortSignal,
  ): Promise<{ Id: string }> {
    // CheckDuplicate: a second network of the same name would make the name ambiguous.
    return this.http.json('POST', '/networks/create', { body: { CheckDuplicate: true, ...body }, signal });
  }

  async connectNetwork(network: string, container: string, endpoint: EndpointSettings = {}): Promise<void> {
    const body = { Container: container, EndpointConfig: endpoint };
    await this.http.empty('POST', `/networks/${encodeURIComponent(network)}/connect`, { body });
  }

  async removeNetwork(id: string): Promise<void> {
    await this.http.empty('DELETE', `/networks/${encodeURIComponent(id)}`);
  }

  async listNetworks(filters: Filters): Promise<NetworkSummary[]> {
    return this.http.json('GET', '/networks', { query: { filters: JSON.stringify(filters) } });
  }

  /** `GET /networks/{id}`: the network's address plan (IPAM), where its gateway is. */
  async inspectNetwork(name: string): Promise<NetworkInspect> {
    return this.http.json('GET', `/networks/${encodeURIComponent(name)}`);
  }

  async createVolume(body: { Name: string; Labels?: Labels }, signal?: AbortSignal): Promise<void> {
    await this.http.empty('POST', '/volumes/create', { body, signal });
  }

  async removeVolume(name: string): Promise<void> {
    await this.http.empty('DELETE', `/volumes/${encodeURIComponent(name)}`);
  }

  async listVolumes(filters: Filters): Promise<VolumeSummary[]> {
    const query = { filters: JSON.stringify(filters) };
    const list = await this.http.json<{ Volumes: VolumeSummary[] | null }>('GET', '/volumes', { query });
    return list.Volumes ?? [];
  }

  /** Inspects an image; rejects with status 404 when it is not present. */
  async inspectImage(reference: string, signal?: AbortSignal): Promise<{ Id: string }> {
    return this.http.json('GET', `/images/${imagePath(reference)}/json`, { signal });
  }

  /**
   * Pulls an image, yielding Docker's progress events; throws when the stream reports an error
   * (a failed pull still answers 200: the error comes as the last event).
   */
  async *pullImage(
    reference: string,
    options: { auth?: RegistryAuth | undefined; signal?: AbortSignal } = {},
  ): AsyncGenerator<PullEvent> {
    const headers: Record<string, string> = {};
    if (options.auth) headers['X-Registry-Auth'] = registryAuth(options.auth);
    const query = pullQuery(reference);
    const response = await this.http.send('POST', '/images/create', {
      query,
      headers,
      signal: options.signal,
    });
    for await (const event of jsonLines<PullEvent>(response)) {
      if (event.error !== undefined) throw new Error(event.error);
      yield event;
    }
  }

  /** Closes idle connections (a process that is done with Docker). */
  close(): void {
    this.http.close();
  }
}

/** An image reference as a path segment: Docker routes `/images/{name}/json` with slashes in the name. */
function imagePath(reference: string): string {
  return encodeURIComponent(reference).replaceAll('%2F', '/');
}

/**
 * The query of a pull. Docker pulls every tag of a name given without tag, so a reference without
 * tag or digest means `latest`, as `docker pull` does.
 */
export function pullQuery(reference: string): { fromImage: string; tag: string } {
  const at = reference.indexOf('@');
  if (at >= 0) return { fromImage: reference.slice(0, at), tag: reference.slice(at + 1) };
  const colon = reference.lastIndexOf(':');
  if (colon > reference.lastIndexOf('/')) {
    return { fromImage: reference.slice(0, colon), tag: reference.slice(colon + 1) };
  }
  return { fromImage: reference, tag: 'latest' };
}

/**
 * The X-Registry-Auth header: the credentials as JSON in URL-safe base64. With padding, because
 * Docker decodes with Go's padded URL encoding.
 */
export function registryAuth(auth: RegistryAuth): string {
  return Buffer.from(JSON.stringify(auth)).toString('base64').replaceAll('+', '-').replaceAll('/', '_');
}
