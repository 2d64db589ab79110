/**
 * docs/spec.md §12 screening port: one question, asked of every configured provider — is any of these
 * addresses blocked? A provider answers per address; the port answers for the set. Nothing here knows
 * where a list comes from or how a risk API is called (src/screening/*-provider.ts do).
 */

/** Where the answer came from: a list's name and version, or the HTTP provider's name. */
export interface ScreeningSource {
  list: string;
  /** The list's content hash (what it lists); the provider's name for an API answer. */
  version: string;
}

export type ScreeningVerdict =
  | { result: 'clear' }
  | ({ result: 'blocked'; address: string; reason: string } & ScreeningSource)
  /** The provider could not answer (timeout, HTTP error); the caller applies HUSH_SCREENING_ON_ERROR. */
  | { result: 'error'; address: string; list: string; reason: string };

/** A verdict that is not a clear: what a hold is for. */
export type ScreeningFinding = Exclude<ScreeningVerdict, { result: 'clear' }>;

/** One source of blocked addresses. */
export interface ScreeningProvider {
  readonly name: string;
  /** The verdict for one address: blocked, clear, or error when the provider could not say. */
  check(address: string): Promise<ScreeningVerdict> | ScreeningVerdict;
}

export interface Screening {
  /** False when no provider is configured: callers skip screening entirely (zero cost). */
  readonly enabled: boolean;
  /**
   * The first blocked verdict among the addresses, else the first error, else clear. With `account` (a quote),
   * the risk-API calls it causes are taken from that account's budget: RATE_LIMITED (HushError) once it is empty.
   */
  check(addresses: readonly string[], opts?: { account?: string }): Promise<ScreeningVerdict>;
  /** Each address's own verdict, in order: a decision weighs every finding, not only the first (issue 49). */
  checkEach(addresses: readonly string[]): Promise<ScreeningVerdict[]>;
  /**
   * Every finding on each address, in order (none: clear): each list that names it, then the HTTP provider's
   * answer. An operator's release covers one finding, so a step that weighs releases must see them all: an
   * address released on one list and listed on another since is held again (docs/spec.md §12).
   */
  findingsEach(addresses: readonly string[]): Promise<ScreeningFinding[][]>;
  /** What /readyz and the log at start say about screening. */
  describe(): ScreeningDescription;
}

export interface ScreeningDescription {
  enabled: boolean;
  lists: { name: string; version: string; loadedAt: string; addresses: number }[];
  http: string | null;
  onError: 'hold' | 'allow';
}

/** Screening off: no provider configured (docs/spec.md §12). */
export const SCREENING_OFF: Screening = {
  enabled: false,
  check: async () => ({ result: 'clear' }),
  checkEach: async (addresses) => addresses.map(() => ({ result: 'clear' as const })),
  findingsEach: async (addresses) => addresses.map(() => []),
  describe: () => ({ enabled: false, lists: [], http: null, onError: 'hold' }),
};
