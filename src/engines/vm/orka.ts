import { z } from 'zod';

/** The namespace every Orka user has; svc's settings name no other. */
const NAMESPACE = 'orka-default';

/** A VM as Orka3 describes it: its name, where its SSH server listens, and its state. */
const vmSchema = z.object({
  name: z.string(),
  ip: z.string().nullish(),
  ssh: z.number().nullish(),
  status: z.string().nullish(),
  image: z.string().nullish(),
});
export type OrkaVm = z.infer<typeof vmSchema>;

/** Orka refused a call or could not be reached: the stage fails with the API's message. */
export class OrkaError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface OrkaOptions {
  /** SVC_VMHOST_ENDPOINT: the Orka API's address. */
  endpoint: string;
  /** SVC_VMHOST_TOKEN: a service account's bearer token. */
  token: string;
  /** SVC_VMHOST_HTTP_DUMP(_BODY): each exchange, the token redacted, through this function. */
  dump?: ((line: string) => void) | undefined;
  dumpBodies?: boolean;
}

/** Orka's answer, fully read. */
interface Answer {
  status: number;
  text: string;
}

/** Deploys wait for the VM: Orka's own limit is ten minutes. */
const CALL_TIMEOUT_MS = 11 * 60_000;

/**
 * The Orka3 REST API (Orka 3.1 and later; 3.0 too) as the VM runner uses it: deploy a VM from an
 * image, list VMs (leftovers), delete one. Deploying is synchronous: Orka answers once the VM runs.
 */
export class OrkaClient {
  readonly #options: OrkaOptions;
  readonly #root: string;

  constructor(options: OrkaOptions) {
    this.#options = options;
    this.#root = `${options.endpoint.replace(/\/+$/, '')}/api/v1/namespaces/${NAMESPACE}/vms`;
  }

  /** `POST …/vms` `{name, image, cpu}`: the running VM. */
  async deploy(vm: { name: string; image: string; cpu: number | null }): Promise<OrkaVm> {
    const body = { name: vm.name, image: vm.image, ...(vm.cpu === null ? {} : { cpu: vm.cpu }) };
    const response = await this.#call('POST', this.#root, body);
    return readAs(vmSchema, response, `deploying ${vm.name}`);
  }

  /** `GET …/vms`: every VM of the namespace. */
  async list(): Promise<OrkaVm[]> {
    const response = await this.#call('GET', this.#root);
    return readAs(z.object({ items: z.array(vmSchema).nullish() }), response, 'listing VMs').items ?? [];
  }

  /** `DELETE …/vms/{name}`; a VM that is gone already (404) is no error. */
  async delete(name: string): Promise<void> {
    try {
      await this.#call('DELETE', `${this.#root}/${encodeURIComponent(name)}`);
    } catch (error) {
      if (error instanceof OrkaError && error.status === 404) return;
      throw error;
    }
  }

  async #call(method: string, url: string, body?: unknown): Promise<Answer> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#options.token}`,
      accept: 'application/json',
      'user-agent': 'svc',
      ...(text === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const dump = this.#options.dump;
    dump?.(
      `Orka ${method} ${url} authorization: Bearer [redacted]${this.#options.dumpBodies && text ? ` ${text}` : ''}`,
    );
    let response: Answer;
    try {
      const answer = await fetch(url, {
        method,
        headers,
        body: text ?? null,
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      response = { status: answer.status, text: await answer.text() };
    } catch (error) {
      const cause =
        error instanceof Error
          ? error.cause instanceof Error
            ? error.cause.message
            : error.message
          : String(error);
      throw new OrkaError(
        0,
        `Orka ${method} ${new URL(url).pathname}: cannot reach ${this.#options.endpoint} (${cause})`,
      );
    }
    dump?.(
      `Orka ${method} ${url}: HTTP ${response.status}${this.#options.dumpBodies && response.text ? ` ${response.text}` : ''}`,
    );
    if (response.status >= 200 && response.status < 300) return response;
    throw new OrkaError(
      response.status,
      `Orka ${method} ${new URL(url).pathname}: HTTP ${response.status}: ${messageOf(response.text)}`,
    );
  }
}

/** Orka's error body `{"message": …}` (also Kubernetes' Status objects); the raw text otherwise. */
function messageOf(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string' && body.message !== '') return body.message;
  } catch {
    // Not JSON: say what came.
  }
  return text.trim().slice(0, 300) || 'no message';
}

function readAs<S extends z.ZodType>(schema: S, response: Answer, what: string): z.infer<S> {
  let json: unknown;
  try {
    json = JSON.parse(response.text);
  } catch {
    throw new OrkaError(response.status, `Orka ${what}: the answer is not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new OrkaError(response.status, `Orka ${what}: the answer does not have the documented shape`);
  return parsed.data;
}
