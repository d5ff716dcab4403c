import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nomadConnection } from './connection.js';

describe('Nomad’s client variables', () => {
  it('default to the local agent without a token', () => {
    expect(nomadConnection({})).toMatchObject({
      address: 'http://127.0.0.1:4646',
      token: '',
      region: '',
      namespace: '',
      tls: { ca: [], skipVerify: false },
    });
  });

  it('read the address (with or without a scheme), token, region, namespace, basic auth', () => {
    const connection = nomadConnection({
      NOMAD_ADDR: 'nomad.internal:4646/',
      NOMAD_TOKEN: 'secret-id',
      NOMAD_REGION: 'eu',
      NOMAD_NAMESPACE: 'ci',
      NOMAD_HTTP_AUTH: 'ops:pw',
      NOMAD_SKIP_VERIFY: 'true',
    });
    expect(connection).toMatchObject({
      address: 'http://nomad.internal:4646',
      token: 'secret-id',
      region: 'eu',
      namespace: 'ci',
      httpAuth: 'ops:pw',
      tls: { skipVerify: true },
    });
  });

  it('read the TLS files now, and name the variable of one that is missing or alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-nomad-tls-'));
    writeFileSync(join(dir, 'ca.pem'), 'CA');
    writeFileSync(join(dir, 'extra.crt'), 'EXTRA');
    writeFileSync(join(dir, 'notes.txt'), 'ignored');
    const connection = nomadConnection({
      NOMAD_ADDR: 'https://n:4646',
      NOMAD_CACERT: join(dir, 'ca.pem'),
      NOMAD_CAPATH: dir,
    });
    expect(connection.tls.ca).toEqual(['CA', 'CA', 'EXTRA']);
    expect(() => nomadConnection({ NOMAD_CACERT: join(dir, 'missing.pem') })).toThrow(
      /^NOMAD_CACERT: cannot read/,
    );
    expect(() => nomadConnection({ NOMAD_CLIENT_CERT: join(dir, 'ca.pem') })).toThrow(
      /^NOMAD_CLIENT_KEY: NOMAD_CLIENT_CERT and NOMAD_CLIENT_KEY go together/,
    );
    expect(() => nomadConnection({ NOMAD_ADDR: 'ftp://n' })).toThrow(
      /^NOMAD_ADDR: "ftp:\/\/n" must start with http/,
    );
  });
});
