/**
 * Deterministic authenticated encryption of cursor payloads (SIV: the IV is a MAC of the
 * plaintext). A cursor is small and encrypted many times, so a random 96-bit GCM nonce per
 * cursor would wear the key towards its birthday bound; a synthetic IV never repeats for two
 * different payloads, and a repeated payload gives the same cursor, which is harmless (and keeps
 * answers cacheable).
 *
 *   token = base64url(tag || AES-256-CTR(encKey, iv = tag, payload)),
 *   tag   = HMAC-SHA256(macKey, payload)[0..16]
 *
 * Opening decrypts and recomputes the tag: a token not sealed with this key (tampered, truncated,
 * made up) fails in constant time.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

const TAG_BYTES = 16;
/** Longest token worth trying to open: a cursor is far shorter; anything longer is not ours. */
const MAX_TOKEN_CHARS = 512;

export class CursorSeal {
  private readonly encKey: Buffer;
  private readonly macKey: Buffer;

  /** `secret`: at least 16 bytes of key material; the two keys are derived from it. */
  constructor(secret: Buffer) {
    if (secret.length < 16) throw new Error('a cursor secret needs at least 16 bytes');
    this.encKey = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'gateway cursor encryption', 32));
    this.macKey = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'gateway cursor authentication', 32));
  }

  seal(payload: Uint8Array): string {
    const tag = this.tagOf(payload);
    const cipher = createCipheriv('aes-256-ctr', this.encKey, tag);
    return Buffer.concat([tag, cipher.update(payload), cipher.final()]).toString('base64url');
  }

  /** The payload, or null when `token` was not sealed with this key. */
  open(token: string): Buffer | null {
    if (token.length > MAX_TOKEN_CHARS || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
    const bytes = Buffer.from(token, 'base64url');
    if (bytes.length <= TAG_BYTES) return null;
    const tag = bytes.subarray(0, TAG_BYTES);
    const decipher = createDecipheriv('aes-256-ctr', this.encKey, tag);
    const payload = Buffer.concat([decipher.update(bytes.subarray(TAG_BYTES)), decipher.final()]);
    return timingSafeEqual(this.tagOf(payload), tag) ? payload : null;
  }

  /**
   * An 8-byte digest binding a cursor to what it belongs to (credential, connection, arguments).
   * Keyed, so the digest says nothing about a credential even to someone who could read it.
   */
  bind(parts: readonly unknown[]): Buffer {
    return createHmac('sha256', this.macKey).update('bind\0').update(JSON.stringify(parts)).digest().subarray(0, 8);
  }

  /**
   * A 12-byte reference derived from what a cursor names (its binding and position): where the
   * upstream cursor starting after that position is kept, so the cursor need not carry a random
   * reference. Keyed, like the binding.
   */
  reference(parts: readonly unknown[]): Buffer {
    return createHmac('sha256', this.macKey).update('reference\0').update(JSON.stringify(parts)).digest().subarray(0, 12);
  }

  private tagOf(payload: Uint8Array): Buffer {
    return createHmac('sha256', this.macKey).update(payload).digest().subarray(0, TAG_BYTES);
  }
}
