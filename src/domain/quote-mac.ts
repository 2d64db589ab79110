/** The quoteId's MAC and its key checks. */
import { hmacSha256Text } from './hmac-sha256.ts';

export const NONCE_BYTES = 8;
export const TAG_BYTES = 16;
const MAC_DOMAIN = Buffer.from('hush/quote/v1', 'ascii');

/** HMAC-SHA256 over "hush/quote/v1" ‖ u16 len ‖ accountId ‖ payload (hmac-sha256.ts), cut to TAG_BYTES. */
export function quoteMac(secret: Uint8Array, accountId: string, payload: Uint8Array): Buffer {
  const tag = Buffer.allocUnsafe(TAG_BYTES);
  tag.write(macText(secret, accountId, payload), 0, TAG_BYTES, 'latin1');
  return tag;
}

/** quoteMac's tag written into `target` at `offset` (the quoteId's own buffer, no copy); returns the offset past it. */
export function writeQuoteMac(secret: Uint8Array, accountId: string, payload: Uint8Array, target: Buffer, offset: number): number {
  return offset + target.write(macText(secret, accountId, payload), offset, TAG_BYTES, 'latin1');
}

/** The MAC's message is assembled here (MACing is synchronous): "hush/quote/v1" ‖ u16 len ‖ accountId ‖ payload. */
const MESSAGE = Buffer.alloc(1024);

function macText(secret: Uint8Array, accountId: string, payload: Uint8Array): string {
  const accountBytes = Buffer.byteLength(accountId);
  const size = MAC_DOMAIN.length + 2 + accountBytes + payload.length;
  const buf = size <= MESSAGE.length ? MESSAGE : Buffer.alloc(size);
  let at = MAC_DOMAIN.copy(buf, 0);
  at = buf.writeUInt16BE(accountBytes, at);
  at += buf.write(accountId, at, 'utf8');
  buf.set(payload, at);
  return hmacSha256Text(secret, buf.subarray(0, size));
}

export function checkQuoteKey(secret: Uint8Array, accountId: string): void {
  if (secret.length < 16) throw new RangeError('quote secret must be at least 16 bytes');
  if (typeof accountId !== 'string' || accountId.length === 0 || Buffer.byteLength(accountId) > 0xffff) {
    throw new RangeError('accountId must be a non-empty string');
  }
}



