import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a webhook may reach: none that is not a public unicast address. The ranges are IANA's
 * special-purpose registries (RFC 6890 and successors) written out by hand: Node's BlockList does the
 * matching, and no library in package.json classifies addresses (ipaddr.js is only a transitive one).
 * Cloud metadata endpoints fall inside them: 169.254.169.254 (link-local), fd00:ec2::254 (unique local),
 * 100.100.100.200 (shared address space), 192.0.0.192 (IETF protocol assignments).
 */
const NOT_PUBLIC_V4: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT shared address space
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, 255.255.255.255 broadcast
];

const NOT_PUBLIC_V6: readonly [string, number][] = [
  ['::', 96], // unspecified, loopback, IPv4-compatible (deprecated)
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments, Teredo included (its IPv4 is obfuscated)
  ['2001:db8::', 32],
  ['3fff::', 20], // documentation
  ['5f00::', 16], // SRv6 SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const blocked = new BlockList();
for (const [net, prefix] of NOT_PUBLIC_V4) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of NOT_PUBLIC_V6) blocked.addSubnet(net, prefix, 'ipv6');

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** The 8 groups of an IPv6 address as numbers (`::` expanded, a dotted IPv4 tail split in two). */
function groups(ip: string): number[] {
  let text = ip;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const mid = tail === undefined ? [] : Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...mid, ...t].map((g) => parseInt(g, 16));
}

function v4Of(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/**
 * The IPv4 address an IPv6 one is translated to on its way (the packet reaches an IPv4 host): IPv4-mapped
 * (::ffff:a.b.c.d), SIIT's IPv4-translated (::ffff:0:a.b.c.d, RFC 2765) and the NAT64 well-known prefix
 * (64:ff9b::/96, RFC 6052). Judged as that IPv4 address, so no IPv6 spelling of 127.0.0.1 or
 * 169.254.169.254 gets through (issue 50: the SIIT form passed).
 */
function translatedV4(g: number[]): string | null {
  const zeros = (from: number, to: number) => g.slice(from, to).every((n) => n === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4Of(g[6]!, g[7]!);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return v4Of(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4Of(g[6]!, g[7]!);
  return null;
}

/**
 * IPv4 addresses an IPv6 address carries to a tunnel or a translator it may be routed through: 6to4
 * (2002:AABB:CCDD::/48), Teredo (2001:0::/32: the server, and the client's address obfuscated by XOR),
 * ISATAP (an interface id of ::0:5efe:a.b.c.d or ::200:5efe:a.b.c.d), the deprecated IPv4-compatible
 * (::a.b.c.d) and NAT64's local-use prefix (64:ff9b:1::/48, RFC 8215: its IPv4 sits after the prefix,
 * in any of RFC 6052's layouts, so the whole prefix is refused below). Each must be public too.
 */
function carriedV4(g: number[]): string[] {
  const out: string[] = [];
  if (g[0] === 0x2002) out.push(v4Of(g[1]!, g[2]!));
  if (g[0] === 0x2001 && g[1] === 0) out.push(v4Of(g[2]!, g[3]!), v4Of(~g[6]! & 0xffff, ~g[7]! & 0xffff));
  if ((g[4]! & 0xfcff) === 0 && g[5] === 0x5efe) out.push(v4Of(g[6]!, g[7]!));
  if (g.slice(0, 6).every((n) => n === 0) && (g[6] !== 0 || g[7]! > 1)) out.push(v4Of(g[6]!, g[7]!));
  return out;
}

export interface EffectiveAddress {
  address: string;
  family: 'ipv4' | 'ipv6';
  /** IPv4 addresses an IPv6 one also carries (tunnels), each judged too. */
  carried: string[];
}

/** An IP literal as the address family it really reaches: IPv4 for the translated forms, else itself. */
export function effectiveAddress(ip: string): EffectiveAddress | null {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return { address: bare, family: 'ipv4', carried: [] };
  if (version !== 6) return null;
  const g = groups(bare);
  if (g.length !== 8 || g.some((n) => !Number.isInteger(n))) return null;
  const v4 = translatedV4(g);
  return v4 ? { address: v4, family: 'ipv4', carried: [] } : { address: bare.toLowerCase(), family: 'ipv6', carried: carriedV4(g) };
}

/** 127.0.0.0/8 or ::1, in any spelling. */
export function isLoopbackAddress(ip: string): boolean {
  const a = effectiveAddress(ip);
  return a !== null && loopback.check(a.address, a.family);
}

/** A public unicast address: none of the ranges above, in any spelling. Not an IP literal → false. */
export function isPublicAddress(ip: string): boolean {
  const a = effectiveAddress(ip);
  return a !== null && !blocked.check(a.address, a.family) && a.carried.every((v4) => !blocked.check(v4, 'ipv4'));
}
