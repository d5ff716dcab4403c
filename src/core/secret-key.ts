/**
 * The key rule of SVC_DATABASE_SECRET: AES-256 needs 32 bytes. The value is either 64 hexadecimal
 * characters (`openssl rand -hex 32`, decoded to 32 bytes) or exactly 32 characters of any kind
 * (`openssl rand -hex 16`, as Drone documents it; the characters' UTF-8 bytes are the key).
 * Returns the key, or a message saying what is expected.
 */
export function parseDatabaseSecret(value: string): Uint8Array | string {
  if (/^[0-9a-fA-F]{64}$/.test(value)) {
    return Uint8Array.from(value.match(/../g) ?? [], (byte) => parseInt(byte, 16));
  }
  const bytes = new TextEncoder().encode(value);
  if (value.length === 32 && bytes.length === 32) {
    return bytes;
  }
  return `expected 32 ASCII characters (e.g. \`openssl rand -hex 16\`) or 64 hexadecimal characters (\`openssl rand -hex 32\`), got ${value.length} characters`;
}
