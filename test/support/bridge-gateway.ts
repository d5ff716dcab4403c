/**
 * The address of a Docker bridge network's gateway: how containers on it reach the machine the
 * engine runs on. Docker's answer is not one shape: an engine that creates the docker0 interface
 * itself (its first start on a machine, Debian's docker.io 20.10) reports the default bridge's IPAM
 * config as `[{"Subnet":"172.17.0.0/16"}]`, with no `Gateway`, although the address is on docker0 all
 * the same; an engine that finds docker0 already there (left by one that ran before) fills the
 * Gateway in from its address, whatever its data root.
 * So the gateway is looked for in order, and every attempt is named when none answers, instead of
 * handing a runner an empty host:
 *   1. the IPAM config's `Gateway`;
 *   2. the IPv4 address of the bridge interface the network's options name, when this machine has it
 *      (the engine runs here) and it lies in the network's subnet;
 *   3. the first host of the IPAM subnet (what Docker's IPAM gives the bridge when nothing else is set);
 *   4. the gateway a container started on the network was given (NetworkSettings, filled at start).
 * Steps 1–3 read the inspect answer (this file); step 4 needs a container, which each caller starts
 * with the engine client it has (test/support/images.ts, the Kubernetes double).
 */
import { isIPv4 } from 'node:net';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

/** The parts of `GET /networks/{id}` (`docker network inspect`) read here; any may be missing. */
export interface BridgeInspect {
  Name?: string;
  IPAM?: { Config?: { Subnet?: string; Gateway?: string }[] | null } | null;
  Options?: Record<string, string> | null;
}

/** The parts of a running container's `NetworkSettings` that carry its gateway. */
export interface ContainerNetworkSettings {
  Gateway?: string;
  Networks?: Record<string, { Gateway?: string } | undefined> | null;
}

export type GatewayAnswer = { address: string; source: string } | { address?: undefined; tried: string[] };

export const BRIDGE_NAME_OPTION = 'com.docker.network.bridge.name';

/** Steps 1–3 of the lookup; `interfaces` are this machine's (os.networkInterfaces()). */
export function gatewayFromInspect(
  network: BridgeInspect,
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces(),
): GatewayAnswer {
  const name = network.Name ?? 'the network';
  const configs = network.IPAM?.Config ?? [];
  const tried: string[] = [];

  const gateway = configs
    .map((config) => config.Gateway)
    .find((value) => value !== undefined && isIPv4(value));
  if (gateway !== undefined) return { address: gateway, source: `${name}'s IPAM Gateway` };
  tried.push(`${name}'s IPAM Gateway (${JSON.stringify(network.IPAM?.Config ?? null)} has none)`);

  const subnets = configs
    .map((config) => config.Subnet)
    .filter((value): value is string => value !== undefined && isIPv4Cidr(value));
  const bridge = network.Options?.[BRIDGE_NAME_OPTION];
  if (bridge === undefined || bridge === '') {
    tried.push(`the bridge interface (${name}'s options have no ${BRIDGE_NAME_OPTION})`);
  } else {
    const addresses = (interfaces[bridge] ?? [])
      .filter((info) => info.family === 'IPv4')
      .map((info) => info.address);
    const inSubnet = addresses.find(
      (address) => subnets.length === 0 || subnets.some((s) => inCidr(address, s)),
    );
    if (inSubnet !== undefined) return { address: inSubnet, source: `interface ${bridge}'s address` };
    tried.push(
      addresses.length === 0
        ? `interface ${bridge}'s address (this machine has no IPv4 address on ${bridge})`
        : `interface ${bridge}'s address (${addresses.join(', ')} not in ${subnets.join(', ')})`,
    );
  }

  const first = subnets.map(firstHost).find((address) => address !== undefined);
  if (first !== undefined) return { address: first, source: `the first host of ${name}'s subnet` };
  tried.push(`the first host of ${name}'s subnet (no IPv4 subnet in its IPAM config)`);
  return { tried };
}

/** Step 4: the gateway in a running container's network settings, on `network` (or its only one). */
export function gatewayFromContainer(
  settings: ContainerNetworkSettings,
  network: string,
): string | undefined {
  const candidates = [settings.Gateway, settings.Networks?.[network]?.Gateway];
  return candidates.find((value) => value !== undefined && isIPv4(value));
}

/** Every attempt failed: the message names each and what it found. */
export class GatewayNotFound extends Error {
  constructor(network: string, tried: string[]) {
    super(`cannot find the gateway of Docker network "${network}"; tried:\n- ${tried.join('\n- ')}`);
    this.name = 'GatewayNotFound';
  }
}

function isIPv4Cidr(value: string): boolean {
  const [address, bits, ...rest] = value.split('/');
  return (
    rest.length === 0 &&
    address !== undefined &&
    isIPv4(address) &&
    /^\d+$/.test(bits ?? '') &&
    Number(bits) <= 32
  );
}

function toNumber(address: string): number {
  return address.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

function toAddress(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

function networkOf(cidr: string): { base: number; size: number } {
  const [address = '', bits = '32'] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return { base: Math.floor(toNumber(address) / size) * size, size };
}

function inCidr(address: string, cidr: string): boolean {
  const { base, size } = networkOf(cidr);
  const value = toNumber(address);
  return value >= base && value < base + size;
}

/** The subnet's first usable address (none in a /31 or /32, which have no network address to skip). */
export function firstHost(cidr: string): string | undefined {
  const { base, size } = networkOf(cidr);
  return size < 4 ? undefined : toAddress(base + 1);
}
