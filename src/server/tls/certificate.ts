import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The certificate files of SVC_TLS_CERT and SVC_TLS_KEY, as paths. */
export interface CertificateFiles {
  cert: string;
  key: string;
}

/** A usable certificate: the chain and key as read, and what the logs say of it. */
export interface LoadedCertificate {
  /** The file's whole chain, as given: the server's certificate first, then its intermediates. */
  cert: Buffer;
  key: Buffer;
  subject: string;
  notAfter: Date;
  fingerprint: string;
}

/** The files cannot serve HTTPS; the message names the setting and the file. */
export class CertificateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CertificateError';
  }
}

/**
 * Reads and checks the certificate files: both readable, a PEM certificate (the first of the chain
 * is the server's) and a PEM private key that belongs to it, valid at `now`. Every problem is a
 * CertificateError naming the setting and the file, for a start-up error or a rejected renewal.
 */
export function loadCertificate(files: CertificateFiles, now = new Date()): LoadedCertificate {
  const cert = read('SVC_TLS_CERT', files.cert);
  const key = read('SVC_TLS_KEY', files.key);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (error) {
    throw new CertificateError(
      `SVC_TLS_CERT: ${files.cert} holds no PEM certificate (${(error as Error).message}); expected the server's certificate, then its chain`,
    );
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (error) {
    throw new CertificateError(
      `SVC_TLS_KEY: ${files.key} is not an unencrypted PEM private key (${(error as Error).message})`,
    );
  }
  const subject = x509.subject.replaceAll('\n', ', ');
  if (!x509.checkPrivateKey(privateKey))
    throw new CertificateError(
      `SVC_TLS_KEY: ${files.key} is not the key of the certificate in ${files.cert} (${subject})`,
    );
  const notBefore = new Date(x509.validFrom);
  const notAfter = new Date(x509.validTo);
  if (notAfter.getTime() <= now.getTime())
    throw new CertificateError(
      `SVC_TLS_CERT: the certificate in ${files.cert} (${subject}) expired on ${notAfter.toISOString()}`,
    );
  if (notBefore.getTime() > now.getTime())
    throw new CertificateError(
      `SVC_TLS_CERT: the certificate in ${files.cert} (${subject}) is not valid before ${notBefore.toISOString()}`,
    );
  return { cert, key, subject, notAfter, fingerprint: x509.fingerprint256 };
}

function read(setting: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new CertificateError(`${setting}: cannot read ${file}: ${(error as Error).message}`);
  }
}
