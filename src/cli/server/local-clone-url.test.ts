import { describe, expect, it } from 'vitest';
import { gatewayOf } from './local-clone-url.js';

describe('gatewayOf', () => {
  it('takes the gateway a network names, or the first address of its IPv4 subnet', () => {
    expect(gatewayOf({ Subnet: '172.17.0.0/16', Gateway: '172.17.0.1' })).toBe('172.17.0.1');
    expect(gatewayOf({ Subnet: '172.17.0.0/16' })).toBe('172.17.0.1');
    expect(gatewayOf({ Subnet: '10.200.3.64/26' })).toBe('10.200.3.65');
    expect(gatewayOf({ Subnet: '192.168.1.77/24' })).toBe('192.168.1.1');
  });

  it('answers nothing for IPv6 or a network too small for a gateway', () => {
    expect(gatewayOf({ Subnet: 'fd00::/64', Gateway: 'fd00::1' })).toBeUndefined();
    expect(gatewayOf({ Subnet: '10.0.0.4/31' })).toBeUndefined();
    expect(gatewayOf({})).toBeUndefined();
  });
});
