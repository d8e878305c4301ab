/**
 * What processes of the cluster tell each other through Redis, made unforgeable and, where it
 * carries users' data, unreadable to whoever else holds the Redis password: an HMAC-SHA256 for a
 * message anyone may read but no one may forge (a question), AES-256-GCM for one that only the
 * cluster may read or write (an answer), bound to its context by the GCM's additional data. Both
 * keys are derived from the encryption key (`vault.deriveKey`), which every process of the cluster
 * shares and Redis never holds.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[\w-]*$/;

export interface MessageSeal {
  /** The HMAC of `text` (base64url). */
  mac(text: string): string;
  /** Whether `mac` is the HMAC of `text`, compared in constant time. */
  verify(text: string, mac: string): boolean;
  /** `plain` encrypted and bound to `context`: `<iv>.<tag>.<ciphertext>` (base64url). */
  seal(plain: string, context: string): string;
  /** The plain text of a sealed box for this `context`; undefined when it was forged, altered or sealed for another. */
  open(box: string, context: string): string | undefined;
}

export function createMessageSeal(keys: { mac: KeyObject; box: KeyObject }): MessageSeal {
  const mac = (text: string) => createHmac('sha256', keys.mac).update(text).digest('base64url');
  return {
    mac,
    verify(text, given) {
      const expected = Buffer.from(mac(text));
      const actual = Buffer.from(given);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keys.box, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context));
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [iv, cipher.getAuthTag(), ct].map((b) => b.toString('base64url')).join('.');
    },
    open(box, context) {
      const parts = box.split('.');
      if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) return undefined;
      const [iv, tag, ct] = parts.map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer];
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', keys.box, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}

/** The seal of one kind of message, its keys derived from the vault's under `purpose`. */
export function messageSealFor(vault: { deriveKey(purpose: string): KeyObject }, purpose: string): MessageSeal {
  return createMessageSeal({ mac: vault.deriveKey(`${purpose}:mac`), box: vault.deriveKey(`${purpose}:box`) });
}
