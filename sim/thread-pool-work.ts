/**
 * WebCrypto's work (Ed25519 signing, digests, key imports) runs on libuv's thread pool, which
 * `process.getActiveResourcesInfo()` does not list: a settle loop that saw a quiet event loop while a signature
 * was being computed moved the simulated clock on meanwhile, by as much as the machine was slow, so a seed ran
 * differently on a loaded machine (a payout signed ahead found stale; the first quote answered seconds late).
 * Each call through `crypto.subtle` is counted while it is in flight. Installed once per process, by the first
 * settle; the methods behave as before.
 */
const METHODS = ['sign', 'verify', 'digest', 'generateKey', 'importKey', 'exportKey', 'encrypt', 'decrypt', 'deriveBits', 'deriveKey', 'wrapKey', 'unwrapKey'] as const;

let inFlight = 0;
let installed = false;

function install(): void {
  installed = true;
  const proto = Object.getPrototypeOf(globalThis.crypto.subtle) as Record<string, unknown>;
  for (const name of METHODS) {
    const original = proto[name];
    if (typeof original !== 'function') continue;
    proto[name] = function (this: unknown, ...args: unknown[]) {
      inFlight++;
      let result: unknown;
      try {
        result = original.apply(this, args);
      } catch (e) {
        inFlight--;
        throw e;
      }
      return Promise.resolve(result).finally(() => inFlight--);
    };
  }
}

/** Calls through `crypto.subtle` not yet answered. */
export function threadPoolWorkInFlight(): number {
  if (!installed) install();
  return inFlight;
}
