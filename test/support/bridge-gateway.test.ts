import { readFileSync } from 'node:fs';
import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { dockerClient } from '../../src/engines/docker/client.js';
import { Engine } from '../doubles/kubernetes/docker.js';
import {
  firstHost,
  gatewayFromContainer,
  gatewayFromInspect,
  GatewayNotFound,
  type BridgeInspect,
} from './bridge-gateway.js';
import { bridgeGateway, containerGateway, type GatewaySources } from './images.js';

/** `docker network inspect bridge` of Debian's docker.io 20.10 at its first start on a machine (no docker0 yet). */
const FIRST_START = (
  JSON.parse(
    readFileSync(new URL('fixtures/docker-bridge-first-start.json', import.meta.url), 'utf8'),
  ) as BridgeInspect[]
)[0] as BridgeInspect;

/** The same engine started again, docker0 now there: IPAM has the gateway, read from docker0. */
const LATER_START: BridgeInspect = {
  ...FIRST_START,
  IPAM: { Config: [{ Subnet: '172.17.0.0/16', Gateway: '172.17.0.1' }] },
};

function ipv4(address: string, cidr: string): NetworkInterfaceInfo {
  return { address, family: 'IPv4', cidr, netmask: '', mac: '', internal: false };
}

const DOCKER0_HERE = {
  docker0: [ipv4('172.17.0.1', '172.17.0.1/16')],
  lo: [ipv4('127.0.0.1', '127.0.0.1/8')],
};

describe('the gateway of a Docker bridge network', () => {
  it('reads the IPAM Gateway when the engine filled it in (docker0 was there)', () => {
    expect(gatewayFromInspect(LATER_START, {})).toEqual({
      address: '172.17.0.1',
      source: "bridge's IPAM Gateway",
    });
  });

  it('takes the bridge interface’s address when IPAM has only the subnet (docker0 was not there)', () => {
    expect(FIRST_START.IPAM?.Config).toEqual([{ Subnet: '172.17.0.0/16' }]);
    expect(gatewayFromInspect(FIRST_START, DOCKER0_HERE)).toEqual({
      address: '172.17.0.1',
      source: "interface docker0's address",
    });
  });

  it('takes the subnet’s first host when the interface is not on this machine (a remote engine)', () => {
    expect(gatewayFromInspect(FIRST_START, { lo: [ipv4('127.0.0.1', '127.0.0.1/8')] })).toEqual({
      address: '172.17.0.1',
      source: "the first host of bridge's subnet",
    });
  });

  it('does not take an interface of that name whose address lies outside the subnet', () => {
    const other = { docker0: [ipv4('10.99.0.1', '10.99.0.1/24')] };
    expect(gatewayFromInspect(FIRST_START, other).address).toBe('172.17.0.1');
  });

  it('treats an empty or malformed Gateway as missing', () => {
    const empty: BridgeInspect = {
      ...FIRST_START,
      IPAM: { Config: [{ Subnet: '172.18.0.0/16', Gateway: '' }] },
    };
    expect(gatewayFromInspect(empty, {}).address).toBe('172.18.0.1');
    const junk: BridgeInspect = {
      ...FIRST_START,
      IPAM: { Config: [{ Subnet: '172.18.0.0/16', Gateway: 'x' }] },
    };
    expect(gatewayFromInspect(junk, {}).address).toBe('172.18.0.1');
  });

  it('names every attempt when the answer has no IPAM config and no bridge option', () => {
    const bare: BridgeInspect = { Name: 'bridge', IPAM: { Config: null }, Options: null };
    const answer = gatewayFromInspect(bare, DOCKER0_HERE);
    expect(answer.address).toBeUndefined();
    const tried = 'tried' in answer ? answer.tried : [];
    expect(tried).toEqual([
      "bridge's IPAM Gateway (null has none)",
      "the bridge interface (bridge's options have no com.docker.network.bridge.name)",
      "the first host of bridge's subnet (no IPv4 subnet in its IPAM config)",
    ]);
    const error = new GatewayNotFound('bridge', [...tried, 'a container (refused)']);
    expect(error.message).toBe(
      `cannot find the gateway of Docker network "bridge"; tried:\n- ${[...tried, 'a container (refused)'].join('\n- ')}`,
    );
  });

  it('says when the named interface has no IPv4 address here', () => {
    const bare: BridgeInspect = { ...FIRST_START, IPAM: null };
    const answer = gatewayFromInspect(bare, {});
    expect('tried' in answer && answer.tried[1]).toBe(
      "interface docker0's address (this machine has no IPv4 address on docker0)",
    );
  });

  it('finds the first host of a subnet, and none in a /31 or /32', () => {
    expect(firstHost('10.1.2.0/24')).toBe('10.1.2.1');
    expect(firstHost('10.1.2.77/24')).toBe('10.1.2.1');
    expect(firstHost('192.168.0.0/30')).toBe('192.168.0.1');
    expect(firstHost('10.0.0.0/31')).toBeUndefined();
    expect(firstHost('10.0.0.1/32')).toBeUndefined();
  });

  it('reads a container’s gateway from its top-level settings or its network’s entry', () => {
    expect(gatewayFromContainer({ Gateway: '172.17.0.1' }, 'bridge')).toBe('172.17.0.1');
    expect(
      gatewayFromContainer({ Gateway: '', Networks: { bridge: { Gateway: '172.17.0.1' } } }, 'bridge'),
    ).toBe('172.17.0.1');
    expect(gatewayFromContainer({ Gateway: '', Networks: {} }, 'bridge')).toBeUndefined();
  });
});

describe('bridgeGateway() on each shape of the inspect answer', () => {
  const sources = (
    answer: BridgeInspect,
    interfaces = {},
    container: string | { tried: string } = { tried: 'a container (not asked)' },
  ): GatewaySources => ({
    inspect: () => JSON.stringify([answer]),
    interfaces: () => interfaces,
    container: () => container,
  });

  it('answers from the IPAM Gateway (docker0 was there when the engine started)', () => {
    expect(bridgeGateway('bridge', sources(LATER_START))).toBe('172.17.0.1');
  });

  it('answers from docker0 when IPAM has only the subnet (the engine created docker0)', () => {
    expect(bridgeGateway('bridge', sources(FIRST_START, DOCKER0_HERE))).toBe('172.17.0.1');
    expect(bridgeGateway('bridge', sources(FIRST_START, {}))).toBe('172.17.0.1');
  });

  it('asks a container last, and throws naming all four attempts when it cannot answer either', () => {
    const bare: BridgeInspect = { Name: 'bridge', IPAM: { Config: [] }, Options: {} };
    expect(bridgeGateway('bridge', sources(bare, {}, '10.9.0.1'))).toBe('10.9.0.1');
    const refused = { tried: "a local/busybox container's NetworkSettings on bridge (no such image)" };
    expect(() => bridgeGateway('bridge', sources(bare, {}, refused))).toThrow(GatewayNotFound);
    expect(() => bridgeGateway('bridge', sources(bare, {}, refused))).toThrow(
      [
        'cannot find the gateway of Docker network "bridge"; tried:',
        "- bridge's IPAM Gateway ([] has none)",
        "- the bridge interface (bridge's options have no com.docker.network.bridge.name)",
        "- the first host of bridge's subnet (no IPv4 subnet in its IPAM config)",
        "- a local/busybox container's NetworkSettings on bridge (no such image)",
      ].join('\n'),
    );
  });
});

const { skip } = await dockerForTests(['local/busybox']);

describe.skipIf(skip)('the gateway of the private engine’s default bridge, whatever its start', () => {
  it('is the address a container on the bridge is given, by both lookups the tests use', async () => {
    const host = process.env.DOCKER_HOST ?? '';
    const engine = new Engine(dockerClient({ host }));
    try {
      const fromCli = bridgeGateway();
      expect(fromCli).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      // The last resort, asked directly: what a container there really gets.
      const labels = { 'io.svc.test': 'gateway' };
      const sandbox = { image: 'local/busybox', command: ['sleep', '30'] };
      expect(containerGateway('bridge')).toBe(fromCli);
      expect(await engine.containerGateway(sandbox, labels)).toBe(fromCli);
      expect(await engine.bridgeGateway(sandbox, labels)).toBe(fromCli);
      // A container that cannot start is an attempt named, not an exception from the lookup.
      const missing = await engine.containerGateway(
        { image: 'svc-test/no-such-image:0', command: [] },
        labels,
      );
      expect(missing).toMatchObject({
        tried: expect.stringContaining('svc-test/no-such-image:0') as unknown,
      });
    } finally {
      engine.close();
    }
  });
});
