import { isIP } from 'node:net';

/**
 * Whether the ops listener serves a request's `Host`: an address literal (how a scraper or an operator on the
 * machine reaches it), `localhost`, or a name the operator configured (HUSH_OPS_HOSTNAMES). Any other name is
 * refused: a page an operator's browser loads from an attacker's domain that rebinds to this listener's address
 * (DNS rebinding) sends its own name, never one of these, so it cannot read /admin or spend the admin throttle.
 */
export function servedHost(host: string | undefined, names: ReadonlySet<string>): boolean {
  const name = hostnameOf(host);
  if (name === null) return false;
  return isIP(name) !== 0 || name === 'localhost' || names.has(name);
}

/** The name of a `Host` header, lower case, without its port, brackets or trailing dot; null when absent. */
export function hostnameOf(host: string | undefined): string | null {
  if (!host) return null;
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(host);
  const name = bracketed ? bracketed[1]! : host.replace(/:\d*$/, '');
  return name.toLowerCase().replace(/\.$/, '');
}
