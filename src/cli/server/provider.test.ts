import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REQUIRED_ENV } from '../../../test/fixtures/spec-settings.js';
import { loadSettings } from '../../config/load.js';
import { gitProvider } from './provider.js';
import { readSigningKey } from './private-key.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-provider-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pkcs1 = file('svc-private.pem', rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());

const serverSettings = (env: Record<string, string>) =>
  loadSettings('server', { ...REQUIRED_ENV.server, ...env }, { cwd: dir }).settings;

describe('Bitbucket Server (SCMF) from its settings', () => {
  it('is the provider when its address, consumer key and key file are set; without SVC_GIT_* it says private clones fail', () => {
    const chosen = gitProvider(
      serverSettings({
        SVC_SCMF_SERVER: 'https://bitbucket.example.com',
        SVC_SCMF_CONSUMER_KEY: 'svc',
        SVC_SCMF_PRIVATE_KEY: pkcs1,
      }),
    );
    if ('error' in chosen) throw new Error(chosen.error);
    expect(chosen.provider?.name).toBe('scmf');
    expect(chosen.provider?.login.kind).toBe('oauth1');
    expect(chosen.notes).toEqual([
      expect.stringContaining('private repositories cannot be cloned') as unknown,
    ]);
    const withAccount = gitProvider(
      serverSettings({
        SVC_SCMF_SERVER: 'https://bitbucket.example.com',
        SVC_SCMF_CONSUMER_KEY: 'svc',
        SVC_SCMF_PRIVATE_KEY: pkcs1,
        SVC_GIT_USERNAME: 'ci-bot',
        SVC_GIT_PASSWORD: 'a-personal-access-token',
      }),
    );
    expect(withAccount).toMatchObject({ notes: [] });
  });

  it('names what is missing when only the address is set', () => {
    expect(gitProvider(serverSettings({ SVC_SCMF_SERVER: 'https://bitbucket.example.com' }))).toEqual({
      error: expect.stringMatching(
        /^SVC_SCMF_CONSUMER_KEY, SVC_SCMF_PRIVATE_KEY: Bitbucket Server \(SCMF\) needs/,
      ) as unknown,
    });
  });

  it('reads PKCS#1 and PKCS#8 RSA keys, and names the file of a key it cannot use', () => {
    expect(readSigningKey(pkcs1)).toMatchObject({ asymmetricKeyType: 'rsa' });
    const pkcs8 = file('pkcs8.pem', rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    expect(readSigningKey(pkcs8)).toMatchObject({ asymmetricKeyType: 'rsa' });
    expect(readSigningKey(join(dir, 'missing.pem'))).toEqual({
      error: expect.stringContaining(`cannot read ${join(dir, 'missing.pem')} (no such file)`) as unknown,
    });
    const publicKey = file('public.pem', rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString());
    expect(readSigningKey(publicKey)).toEqual({
      error: expect.stringContaining(`${publicKey} is not a PEM private key`) as unknown,
    });
    const encrypted = file(
      'encrypted.pem',
      rsa.privateKey
        .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' })
        .toString(),
    );
    expect(readSigningKey(encrypted)).toEqual({
      error: expect.stringContaining('is encrypted with a passphrase') as unknown,
    });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const ecFile = file('ec.pem', ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    expect(readSigningKey(ecFile)).toEqual({ error: expect.stringContaining('holds an ec key') as unknown });
    const settings = serverSettings({
      SVC_SCMF_SERVER: 'https://bitbucket.example.com',
      SVC_SCMF_CONSUMER_KEY: 'svc',
      SVC_SCMF_PRIVATE_KEY: ecFile,
    });
    expect(gitProvider(settings)).toEqual({
      error: expect.stringMatching(/^SVC_SCMF_PRIVATE_KEY: /) as unknown,
    });
  });
});
