import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction } from 'node:net';
import { effectiveAddress, isLoopbackAddress, isPublicAddress } from './egress-ranges.ts';

/** Resolves a host name to every address it has (dns.lookup's, or a test's). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** A webhook target this process may not reach; the message names no address (it may reach a partner). */
export class EgressRefusedError extends Error {
  override readonly name = 'EgressRefusedError';
  constructor(readonly reason: string) {
    super(`webhook target refused: ${reason}`);
  }
}

export const NOT_PUBLIC = 'its address is not a public one (private, loopback, link-local, metadata or reserved)';
export const PLAIN_HTTP = 'plain http goes only to this machine, and only while Hush runs its embedded local chain';

/** RFC 6761: names under .localhost are loopback, whatever a resolver says. */
function isLoopbackName(hostname: string): boolean {
  return /(^|\.)localhost\.?$/i.test(hostname);
}

/**
 * Where webhooks may go (docs/spec.md §3, Webhooks): https to a public address; in the embedded dev mode
 * (the chain is Hush's own local one) also this machine, over http or https. Checked on every address a
 * name resolves to, inside the connection's own lookup, so the address checked is the address connected
 * to (a name repointed between a check and the connect cannot slip through); TLS still verifies the name.
 */
export class WebhookEgress {
  /** Keep-alive pools of this policy only: a socket one policy opened is never reused under another. */
  readonly agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  private readonly resolve: Resolver;

  constructor(readonly opts: { loopback: boolean; resolve?: Resolver }) {
    this.resolve = opts.resolve ?? systemResolver;
  }

  /** Why an address may not be reached over `protocol`, or null when it may. */
  refusal(ip: string, protocol: string): string | null {
    if (isLoopbackAddress(ip)) return this.opts.loopback ? null : NOT_PUBLIC;
    if (protocol === 'http:') return PLAIN_HTTP;
    return isPublicAddress(ip) ? null : NOT_PUBLIC;
  }

  /**
   * Set-time check of what the URL itself says (scheme, an IP literal, a localhost name): a clear error
   * early. Not the guard: a name may resolve anywhere later, which `lookup` refuses at connect time.
   */
  urlRefusal(url: URL): string | null {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'only https URLs are accepted';
    const ip = effectiveAddress(url.hostname);
    if (ip) return this.refusal(url.hostname, url.protocol);
    if (isLoopbackName(url.hostname)) return this.opts.loopback ? null : NOT_PUBLIC;
    return url.protocol === 'http:' ? PLAIN_HTTP : null;
  }

  /** The connection's lookup for one URL's protocol: every resolved address must pass, or none is used. */
  lookup(protocol: string): LookupFunction {
    return (hostname, options, callback) => {
      const done = callback as (err: Error | null, address: string | LookupAddress[], family?: number) => void;
      this.resolve(hostname).then(
        (all) => {
          const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
          // One refused address refuses the name: a rebinding name may answer a public and a private one.
          const refused = wanted.length === 0 ? 'the name has no address' : (wanted.map((a) => this.refusal(a.address, protocol)).find((r) => r !== null) ?? null);
          if (refused) return done(new EgressRefusedError(refused), '');
          if (options.all) return done(null, wanted);
          done(null, wanted[0]!.address, wanted[0]!.family);
        },
        (err: Error) => done(err, ''),
      );
    };
  }
}

/** The policy of a process: loopback only when the chain is the embedded local one (no SOLANA_RPC_URL). */
const byConfig = new WeakMap<object, WebhookEgress>();
export function webhookEgressFor(config: { solanaRpcUrl?: string }): WebhookEgress {
  let egress = byConfig.get(config);
  if (!egress) byConfig.set(config, (egress = new WebhookEgress({ loopback: !config.solanaRpcUrl })));
  return egress;
}
