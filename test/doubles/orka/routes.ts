/*
 * The Orka3 API routes the double answers (paths, fields and codes in /tmp/research/orka.md §4, from
 * docs.macstadium.com and MacStadium's Jenkins/TeamCity/GitHub Actions clients). Errors are JSON
 * `{"message": "…"}` with the HTTP status, which is all the Orka3 clients read. Codes and wording that no
 * public source fixes are the double's choice: 401 `Unauthorized`; 403 for another namespace and for an
 * invalid VM name (the documented answer to an invalid VM config name); 409 for a taken name; 400 for an
 * unknown image or a bad body; 404 for a missing VM; 201 for a deploy and 200 with no body for a delete.
 */
import { DEFAULT_CPU, NAMESPACE, renderDeployed, renderVm, type OrkaState } from './state.js';

export interface Reply {
  status: number;
  /** JSON body; `undefined` sends none, a string is sent as text/plain. */
  body?: unknown;
}

const VMS = /^\/api\/v1\/namespaces\/([^/]+)\/vms(?:\/([^/]+))?$/;
/** Deploy fields MacStadium's Jenkins plugin sends (Orka3 API); anything else is recorded as unknown. */
const DEPLOY_FIELDS = new Set([
  ...['name', 'shouldGenerateName', 'image', 'cpu', 'memory', 'timeout', 'vmConfig', 'node', 'scheduler'],
  ...['tag', 'tagRequired', 'netBoost', 'legacyIO', 'gpuPassthrough', 'reservedPorts'],
  ...['displayWidth', 'displayHeight', 'displayDpi'],
]);
/** Name rule of the orka3 CLI reference: lowercase alphanumerics or `-`, letter first, alphanumeric last. */
const VM_NAME = /^[a-z]([a-z0-9-]*[a-z0-9])?$/;

const error = (status: number, message: string): Reply => ({ status, body: { message } });

export async function route(
  state: OrkaState,
  token: string,
  req: { method: string; path: string; body: unknown; authorization: string | undefined },
): Promise<Reply> {
  const { method, path } = req;
  if (method === 'GET' && path === '/api/v1/cluster-info') {
    return { status: 200, body: clusterInfo() };
  }
  const match = VMS.exec(path);
  const known =
    match !== null && (match[2] === undefined ? ['GET', 'POST'] : ['GET', 'DELETE']).includes(method);
  if (match === null || !known) {
    state.unknown.push(`${method} ${path}`);
    return { status: 404, body: '404 page not found' };
  }
  if (req.authorization !== `Bearer ${token}`) return error(401, 'Unauthorized');
  const [, namespace = '', rawName] = match;
  if (namespace !== NAMESPACE) {
    return error(403, `the caller has no access to namespace "${decodeURIComponent(namespace)}"`);
  }
  if (rawName === undefined) {
    if (method === 'GET') return { status: 200, body: { items: [...state.vms.values()].map(renderVm) } };
    return deploy(state, path, req.body);
  }
  const name = decodeURIComponent(rawName);
  const vm = state.vms.get(name);
  if (method === 'GET') return vm === undefined ? notFound(name) : { status: 200, body: renderVm(vm) };
  return (await state.delete(name)) ? { status: 200 } : notFound(name);
}

async function deploy(state: OrkaState, path: string, body: unknown): Promise<Reply> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return error(400, 'the request body must be a JSON object');
  }
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!DEPLOY_FIELDS.has(key)) state.unknown.push(`POST ${path} field ${key}`);
  }
  if (fields.vmConfig !== undefined) {
    state.unknown.push(`POST ${path} field vmConfig (VM configs are not modelled)`);
    return error(400, 'the double does not model VM configs: deploy with "image"');
  }
  const { image, cpu = DEFAULT_CPU, name, shouldGenerateName } = fields;
  if (typeof image !== 'string' || image === '') return error(400, 'image is required');
  if (typeof cpu !== 'number' || !Number.isInteger(cpu) || cpu < 1) {
    return error(400, 'cpu must be a positive integer');
  }
  if (name !== undefined && (typeof name !== 'string' || !VM_NAME.test(name) || name.length > 63)) {
    return error(
      403,
      `VM name must be a valid DNS-1035 label of at most 63 characters: ${JSON.stringify(name)}`,
    );
  }
  const failure = state.takeFailure();
  if (failure !== undefined) return error(failure.status, failure.message);
  if (!state.images.includes(image)) return error(400, `Image ${image} not found`);
  const chosen =
    name === undefined
      ? state.uniqueName('vm-')
      : shouldGenerateName === true
        ? state.uniqueName(`${name}-`)
        : name;
  if (chosen.length > 63) return error(403, `VM name must be at most 63 characters: ${chosen}`);
  if (state.vms.has(chosen)) return error(409, `VM with name ${chosen} already exists`);
  const vm = await state.deploy(chosen, image, cpu);
  if (vm.deleted) return error(500, `VM ${chosen} was deleted before it was running`);
  return { status: 201, body: renderDeployed(vm) };
}

function notFound(name: string): Reply {
  return error(404, `VM ${name} not found`);
}

/** `GET /api/v1/cluster-info` (the API reference's first operation; needs no token). */
function clusterInfo(): Record<string, unknown> {
  return {
    apiDomain: '',
    apiEndpoint: 'https://127.0.0.1:6443',
    appClientId: '',
    baseOauthEndpoint: '',
    certData: '',
    gpuPassthroughEnabled: false,
  };
}
