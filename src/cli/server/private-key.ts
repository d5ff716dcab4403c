import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * Reads the RSA private key that signs Bitbucket Server's OAuth requests (SVC_SCMF_PRIVATE_KEY):
 * PEM, PKCS#1 (`BEGIN RSA PRIVATE KEY`, what `openssl genrsa` writes) or PKCS#8. Every way it can be
 * unusable is an error naming the setting and the file.
 */
export function readSigningKey(path: string): KeyObject | { error: string } {
  const setting = 'SVC_SCMF_PRIVATE_KEY';
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(code ?? error);
    return { error: `${setting}: cannot read ${path} (${why}); mount the key file and give its path` };
  }
  if (/-----BEGIN (ENCRYPTED PRIVATE KEY|RSA PRIVATE KEY-----\s*Proc-Type: 4,ENCRYPTED)/.test(pem))
    return {
      error: `${setting}: ${path} is encrypted with a passphrase; svc needs the key unencrypted (openssl rsa -in ${path} -out key.pem)`,
    };
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    return {
      error: `${setting}: ${path} is not a PEM private key (expected "-----BEGIN RSA PRIVATE KEY-----", as openssl genrsa writes)`,
    };
  }
  if (key.asymmetricKeyType !== 'rsa')
    return {
      error: `${setting}: ${path} holds an ${key.asymmetricKeyType ?? 'unknown'} key; OAuth 1.0a with RSA-SHA1 needs an RSA key`,
    };
  return key;
}
