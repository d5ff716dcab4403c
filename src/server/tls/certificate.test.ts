import { X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { certificate, certificateAuthority } from '../../../test/support/certificates.js';
import { CertificateError, loadCertificate } from './certificate.js';
import { watchCertificate } from './reload.js';

function files(pair: { cert: string; key: string }): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-files-'));
  writeFileSync(join(dir, 'cert.pem'), pair.cert);
  writeFileSync(join(dir, 'key.pem'), pair.key);
  return { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
}

function refusal(paths: { cert: string; key: string }): string {
  try {
    loadCertificate(paths);
  } catch (error) {
    expect(error).toBeInstanceOf(CertificateError);
    return (error as Error).message;
  }
  return 'loaded';
}

describe('the certificate files (SVC_TLS_CERT, SVC_TLS_KEY)', () => {
  const ca = certificateAuthority();

  it('loads a chain as given, with its leaf’s subject, expiry and fingerprint', () => {
    const pair = certificate({ ca });
    const loaded = loadCertificate(files(pair));
    expect(loaded.cert.toString()).toBe(pair.cert);
    expect(loaded.subject).toBe('CN=127.0.0.1');
    expect(loaded.fingerprint).toBe(new X509Certificate(pair.cert).fingerprint256);
    expect(loaded.notAfter.getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
  });

  it('refuses what cannot serve HTTPS, naming the setting and the file', () => {
    const good = files(certificate());
    const other = files(certificate());
    expect(refusal({ cert: '/nonexistent/cert.pem', key: good.key })).toMatch(
      /^SVC_TLS_CERT: cannot read \/nonexistent\/cert\.pem: ENOENT/,
    );
    expect(refusal({ cert: good.cert, key: '/nonexistent/key.pem' })).toMatch(
      /^SVC_TLS_KEY: cannot read \/nonexistent\/key\.pem/,
    );
    expect(refusal({ cert: good.key, key: good.key })).toMatch(/^SVC_TLS_CERT: .* holds no PEM certificate/);
    expect(refusal({ cert: good.cert, key: good.cert })).toMatch(
      /^SVC_TLS_KEY: .* is not an unencrypted PEM private key/,
    );
    expect(refusal({ cert: good.cert, key: other.key })).toBe(
      `SVC_TLS_KEY: ${other.key} is not the key of the certificate in ${good.cert} (CN=127.0.0.1)`,
    );
    const expired = files(certificate({ days: -1 }));
    expect(refusal(expired)).toMatch(
      new RegExp(
        `^SVC_TLS_CERT: the certificate in ${expired.cert} \\(CN=127\\.0\\.0\\.1\\) expired on \\d{4}-`,
      ),
    );
  });

  it('hands a renewal to the server, and keeps the old certificate when the new files do not load', async () => {
    const paths = files(certificate({ cn: 'first' }));
    const used: string[] = [];
    const refused: string[] = [];
    const stop = watchCertificate(
      paths,
      loadCertificate(paths),
      (renewed) => used.push(renewed.subject),
      { reloaded: () => undefined, refused: (reason) => refused.push(reason) },
      50,
    );
    try {
      const renewed = certificate({ cn: 'renewed' });
      // Half-written: the new certificate with the old key is refused, then the key arrives.
      writeFileSync(paths.cert, renewed.cert);
      await until(() => refused.length > 0);
      expect(refused[0]).toMatch(/^SVC_TLS_KEY: .* is not the key of the certificate/);
      expect(used).toEqual([]);
      writeFileSync(paths.key, renewed.key);
      await until(() => used.length > 0);
      expect(used).toEqual(['CN=renewed']);
    } finally {
      stop();
    }
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(check()).toBe(true);
}
