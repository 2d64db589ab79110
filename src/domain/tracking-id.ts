const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/**
 * `trk_` and 22 random base58 characters (~129 bits): unguessable, so it can name an order publicly.
 * `randomInt(n)`: a uniform integer in [0, n) from the caller's generator (a cryptographic one in production).
 */
export function newTrackingId(randomInt: (n: number) => number): string {
  let s = 'trk_';
  for (let i = 0; i < 22; i++) s += BASE58[randomInt(58)];
  return s;
}
