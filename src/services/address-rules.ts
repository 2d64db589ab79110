import { isAddress, isOffCurveAddress, type Address } from '@solana/kit';
import { HushError } from '../domain/errors.ts';
import { NATIVE_MINTS, reservedKind } from '../domain/reserved-addresses.ts';

/**
 * Address checks, memoized: the curve check runs JS BigInt math (tens of µs) and partners quote the
 * same wallets repeatedly.
 */
const MAX = 50_000;
const onCurve = new Map<string, boolean>();

function remember<K, V>(m: Map<K, V>, k: K, v: V): V {
  if (m.size >= MAX) m.clear();
  m.set(k, v);
  return v;
}

/** A base58 32-byte key, else INVALID_ADDRESS naming the field. */
function requireAddress(value: string, field: string): Address {
  if (!onCurve.has(value) && !isAddress(value)) throw new HushError('INVALID_ADDRESS', `${field} is not a valid Solana address`, { field, reason: 'invalid' });
  return value as Address;
}

/** An ordinary wallet: a key on the ed25519 curve, not a program-derived address. */
function requireWallet(value: string, field: string): Address {
  const a = requireAddress(value, field);
  const ok = onCurve.get(a) ?? remember(onCurve, a, !isOffCurveAddress(a));
  if (!ok) throw new HushError('INVALID_ADDRESS', `${field} must be an ordinary wallet address (on the ed25519 curve)`, { field, reason: 'off_curve' });
  return a;
}

/** Why an address may not take part in a transfer (the `reason` of INVALID_ADDRESS). */
export type AddressRefusal = 'sysvar' | 'program' | 'mint' | 'hush_address';

const MESSAGES: Record<AddressRefusal, string> = {
  sysvar: 'is a sysvar',
  program: 'is a program',
  mint: 'is a token mint',
  hush_address: "is one of Hush's own addresses",
};

/**
 * docs/spec.md §4: sender, recipient and fee recipient are never a sysvar, a known program, a mint or one
 * of Hush's own addresses. Set lookups only (the quote path); `own` holds public addresses the caller
 * gathered (fee payer, pool wallets and their holdings): no signing key is needed to build it.
 */
export class AddressRules {
  private readonly mints: ReadonlySet<string>;
  private readonly own: ReadonlySet<string>;

  /** `own` is kept, not copied: a caller that learns its addresses later (role api) fills it then. */
  constructor(mints: Iterable<string> = [], own: ReadonlySet<string> = new Set()) {
    this.mints = new Set([...NATIVE_MINTS, ...mints]);
    this.own = own;
  }

  refusal(address: string): AddressRefusal | null {
    if (this.own.has(address)) return 'hush_address';
    if (this.mints.has(address)) return 'mint';
    return reservedKind(address);
  }

  /** Throws INVALID_ADDRESS naming the field, the reason in details, when the address is refused. */
  check(address: string, field: string): void {
    const reason = this.refusal(address);
    if (reason) throw new HushError('INVALID_ADDRESS', `${field} ${MESSAGES[reason]}; it cannot send or receive a transfer`, { field, reason });
  }

  /** A well-formed address (requireAddress) that the rules allow. */
  address(value: string, field: string): Address {
    const a = requireAddress(value, field);
    this.check(a, field);
    return a;
  }

  /** An ordinary wallet (requireWallet) that the rules allow. */
  wallet(value: string, field: string): Address {
    // The rules first: "is a sysvar" says more than "is off the curve" (many programs are off it).
    this.check(requireAddress(value, field), field);
    return requireWallet(value, field);
  }
}

/** Hush's own public addresses: the fee payer, every pool wallet and where its funds sit. */
export function ownAddressesOf(wallets: { feePayer: { address: string }; allPools(): { address: string; holding: string }[] }): Set<string> {
  return new Set([wallets.feePayer.address, ...wallets.allPools().flatMap((p) => [p.address, p.holding])]);
}

/**
 * Order creation's part of the rules: no address of an order may be another order's deposit owner or deposit
 * account. The store knows them (indexed), and the order's insert checks them itself (orders-store.ts); a quote does
 * not ask. The refusal names the first of the order's fields whose address the insert found.
 */
export function depositAddressRefusal(fields: { senderAddress: string; recipientAddress: string; feeRecipientAddress?: string }, found: readonly string[]): HushError {
  const hit = (['senderAddress', 'recipientAddress', 'feeRecipientAddress'] as const).find((f) => fields[f] !== undefined && found.includes(fields[f]!)) ?? 'senderAddress';
  return new HushError('INVALID_ADDRESS', `${hit} is one of Hush's own addresses (a deposit address); it cannot send or receive a transfer`, { field: hit, reason: 'hush_address' });
}
