/*
 * The Orka double against the Orka3 API as documented (/tmp/research/orka.md): bearer tokens, deploy from
 * an image (a real sshd per VM, reachable with the VM password over ssh2), list, get, delete (the sshd
 * stops), failed deploys with the API's message, unknown calls recorded. The HTTP-only checks need no sshd.
 */
import { connect } from 'node:net';
import { Client } from 'ssh2';
import { afterEach, describe, expect, it } from 'vitest';
import { sshdForTests } from '../../support/sshd.js';
import { startOrkaDouble, type OrkaDouble } from './index.js';

const VMS = '/api/v1/namespaces/orka-default/vms';
const IMAGE = 'ghcr.io/macstadium/orka-images/sequoia:latest';
let orka: OrkaDouble | undefined;
afterEach(async () => {
  await orka?.close();
  orka = undefined;
});

async function call(path: string, init: { method?: string; body?: unknown; token?: string | null } = {}) {
  if (orka === undefined) throw new Error('no double');
  const token = init.token === undefined ? orka.token : init.token;
  const res = await fetch(orka.url + path, {
    method: init.method ?? 'GET',
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  const isJson = res.headers.get('content-type')?.startsWith('application/json') === true;
  return {
    status: res.status,
    json: (isJson ? JSON.parse(text) : undefined) as Record<string, unknown>,
    text,
  };
}

function sshRun(port: number, user: { username: string; password: string }, command: string) {
  return new Promise<{ code: number; out: string }>((resolve, reject) => {
    const client = new Client();
    client
      .on('ready', () => {
        client.exec(command, (err, stream) => {
          if (err) return reject(err);
          let out = '';
          stream.on('data', (data: Buffer) => (out += data.toString()));
          stream.on('close', (code: number) => {
            client.end();
            resolve({ code, out });
          });
        });
      })
      .on('error', reject)
      .connect({ host: '127.0.0.1', port, ...user, readyTimeout: 5000 });
  });
}

const refuses = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => (socket.destroy(), resolve(false)));
    socket.on('error', () => resolve(true));
  });

describe('Orka double: the API without VMs', () => {
  it('refuses calls without the bearer token with 401 and records every request', async () => {
    orka = await startOrkaDouble();
    expect(await call(VMS, { token: null })).toMatchObject({
      status: 401,
      json: { message: 'Unauthorized' },
    });
    expect((await call(VMS, { token: 'wrong' })).status).toBe(401);
    expect(await call(VMS)).toMatchObject({ status: 200, json: { items: [] } });
    expect((await call('/api/v1/cluster-info', { token: null })).status).toBe(200);
    expect(orka.requests().map((r) => [r.method, r.path, r.authorization])).toEqual([
      ['GET', VMS, undefined],
      ['GET', VMS, 'Bearer wrong'],
      ['GET', VMS, `Bearer ${orka.token}`],
      ['GET', '/api/v1/cluster-info', undefined],
    ]);
  });

  it('fails deploys on request, then for an unknown image, with the message', async () => {
    orka = await startOrkaDouble();
    orka.failDeploys(2, 409, 'Not enough CPU available');
    const body = { name: 'svc-a', image: IMAGE, cpu: 4 };
    expect(await call(VMS, { method: 'POST', body })).toMatchObject({
      status: 409,
      json: { message: 'Not enough CPU available' },
    });
    expect((await call(VMS, { method: 'POST', body })).status).toBe(409);
    expect(await call(VMS, { method: 'POST', body: { image: 'nope.img' } })).toMatchObject({
      status: 400,
      json: { message: 'Image nope.img not found' },
    });
    expect((await call(VMS, { method: 'POST', body: { name: 'Bad_Name', image: IMAGE } })).status).toBe(403);
    expect(orka.requests()[0]?.body).toEqual(body);
    expect(orka.vms()).toEqual([]);
  });

  it('answers 404 for missing VMs and other paths, 403 for other namespaces', async () => {
    orka = await startOrkaDouble();
    expect((await call(`${VMS}/ghost`)).status).toBe(404);
    expect((await call(`${VMS}/ghost`, { method: 'DELETE' })).json).toEqual({
      message: 'VM ghost not found',
    });
    expect((await call('/api/v1/namespaces/orka-other/vms')).status).toBe(403);
    expect(await call('/resources/vm/list')).toMatchObject({ status: 404, text: '404 page not found' });
    await call(VMS, { method: 'POST', body: { image: 'x', cpu_count: 2 } });
    expect(orka.unknownCalls()).toEqual(['GET /resources/vm/list', `POST ${VMS} field cpu_count`]);
  });
});

describe.skipIf(sshdForTests().skip)('Orka double: VMs are real sshd processes', () => {
  it('deploys a VM reachable over SSH with the VM password, lists, gets and deletes it', async () => {
    orka = await startOrkaDouble();
    const deployed = await call(VMS, { method: 'POST', body: { name: 'svc-stage-1', image: IMAGE, cpu: 4 } });
    expect(deployed.status).toBe(201);
    expect(deployed.json).toMatchObject({ name: 'svc-stage-1', ip: '127.0.0.1', status: 'Running' });
    const port = deployed.json.ssh as number;
    expect(orka.vms()).toEqual([
      { name: 'svc-stage-1', image: IMAGE, cpu: 4, ip: '127.0.0.1', sshPort: port },
    ]);
    const run = await sshRun(port, orka.vmUser, 'echo "hello from $(whoami)"; exit 3');
    expect(run).toEqual({ code: 3, out: `hello from ${orka.vmUser.username}\n` });

    const listed = await call(VMS);
    expect(listed.json.items).toEqual([
      expect.objectContaining({ name: 'svc-stage-1', ip: '127.0.0.1', ssh: port, cpu: 4, image: IMAGE }),
    ]);
    expect((await call(`${VMS}/svc-stage-1`)).json).toMatchObject({ ssh: port, status: 'Running' });
    expect((await call(VMS, { method: 'POST', body: { name: 'svc-stage-1', image: IMAGE } })).status).toBe(
      409,
    );

    expect(await call(`${VMS}/svc-stage-1`, { method: 'DELETE' })).toEqual({
      status: 200,
      json: undefined,
      text: '',
    });
    expect(await refuses(port)).toBe(true);
    expect(orka.vms()).toEqual([]);
    expect(orka.unknownCalls()).toEqual([]);
  });

  it('lists a VM as Pending while its deploy is under way and generates names', async () => {
    orka = await startOrkaDouble({ deployDelayMs: 400 });
    const deploying = call(VMS, {
      method: 'POST',
      body: { name: 'svc', shouldGenerateName: true, image: IMAGE },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const items = (await call(VMS)).json.items as Record<string, unknown>[];
    expect(items).toEqual([expect.objectContaining({ status: 'Pending', cpu: 3 })]);
    expect(items[0]).not.toHaveProperty('ssh');
    const deployed = await deploying;
    expect(deployed.json.name).toMatch(/^svc-[a-z0-9]{5}$/);
    expect(deployed.json.status).toBe('Running');
  });
});
