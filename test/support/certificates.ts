import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate and its key as PEM, and the certificate's SHA-256 fingerprint as Node prints it. */
export interface TestCertificate {
  cert: string;
  key: string;
}

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

/**
 * A certificate for 127.0.0.1 signed by `ca` (or self-signed), valid for `days` from now: a negative
 * number makes one that expired. With a CA, `cert` is the chain as servers serve it (leaf, then CA).
 */
export function certificate(
  options: { days?: number; ca?: TestCertificate; cn?: string } = {},
): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cert-'));
  const key = join(dir, 'key.pem');
  const csr = join(dir, 'req.csr');
  const cert = join(dir, 'cert.pem');
  const ext = join(dir, 'ext.cnf');
  execFileSync('sh', ['-c', `printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > ${ext}`]);
  openssl(
    'req',
    '-new',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${options.cn ?? '127.0.0.1'}`,
    '-keyout',
    key,
    '-out',
    csr,
  );
  const days = String(options.days ?? 30);
  if (options.ca === undefined) {
    openssl('x509', '-req', '-in', csr, '-signkey', key, '-days', days, '-extfile', ext, '-out', cert);
    return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
  }
  const caCert = join(dir, 'ca.pem');
  const caKey = join(dir, 'ca-key.pem');
  execFileSync('sh', ['-c', `cat > ${caCert}`], { input: options.ca.cert });
  execFileSync('sh', ['-c', `cat > ${caKey}`], { input: options.ca.key });
  openssl(
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    caCert,
    '-CAkey',
    caKey,
    '-CAcreateserial',
    '-days',
    days,
    '-extfile',
    ext,
    '-out',
    cert,
  );
  return { cert: readFileSync(cert, 'utf8') + options.ca.cert, key: readFileSync(key, 'utf8') };
}

/** A certificate authority (self-signed, CA:true). */
export function certificateAuthority(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ca-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '30',
    '-subj',
    '/CN=svc test CA',
    '-addext',
    'basicConstraints=critical,CA:true',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout',
    key,
    '-out',
    cert,
  );
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
}
