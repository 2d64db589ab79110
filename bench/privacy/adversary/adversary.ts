/**
 * The adversary end to end, from public inputs only: Hush's public accounts and release policy, the
 * public API (its own key), the chain's JSON-RPC, and its own transfers through Hush (which it knows
 * both ends of). It reads the chain, sets its own transfers aside after learning the pipeline's latency
 * from them, and learns the fee schedule by quoting.
 */
import type { HushApi } from '../hush-api.ts';
import { learnSchedule, scheduleFrom, type QuoteWallets, type ScheduleData } from './fee-schedule.ts';
import type { AdversaryKnowledge } from './models.ts';
import { observeChain, type ChainView, type HushPublicAccounts } from './observe-chain.ts';
import type { AssetInfo } from './observation.ts';
import { calibrate, type ReleasePolicy } from './timing-model.ts';

export interface PublicInputs {
  rpcUrl: string;
  hush: HushPublicAccounts;
  policy: ReleasePolicy;
  slotMs: number;
  api: HushApi;
  wallets: QuoteWallets;
}

/** The adversary's own transfers: deposit signature and the recipient it chose. */
export interface OwnTransfer {
  depositSignature: string;
  recipient: string;
}

const PROGRAMS = [
  '11111111111111111111111111111111',
  'ComputeBudget111111111111111111111111111111',
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
  'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
  'SysvarRent111111111111111111111111111111111',
];

export async function publicAssets(api: HushApi): Promise<AssetInfo[]> {
  const { tokens } = await api.call<{ tokens: { assetId: string; mint: string; decimals: number; native: boolean; swappable: boolean; swapGrid?: string; denominations?: string[] }[] }>('GET', '/tokens');
  return tokens.map((t) => ({
    assetId: t.assetId,
    mint: t.mint,
    decimals: t.decimals,
    native: t.native,
    swappable: t.swappable,
    ...(t.swapGrid ? { swapGrid: BigInt(t.swapGrid) } : {}),
    denominations: (t.denominations ?? []).map(BigInt),
  }));
}

export interface AdversaryState {
  /** The chain as read, the adversary's own transfers removed. */
  view: ChainView;
  knowledge: AdversaryKnowledge;
  /** The quotes behind knowledge.schedule, as data (what a scoring thread rebuilds it from). */
  scheduleData: ScheduleData;
  /** Its own transfers' delays, seconds: what the latency was calibrated on. */
  ownDelaysS: number[];
}

export async function runAdversary(inputs: PublicInputs, own: OwnTransfer[], fromSlot: number): Promise<AdversaryState> {
  const assets = await publicAssets(inputs.api);
  const full = await observeChain(inputs.rpcUrl, inputs.hush, assets, fromSlot);
  const slotS = inputs.slotMs / 1000;
  const ownDelaysS = own.flatMap((o) => {
    const d = full.deposits.find((x) => x.signature === o.depositSignature);
    const p = full.payouts.find((x) => x.recipient === o.recipient);
    return d && p ? [(p.slot - d.slot) * slotS] : [];
  });
  const ownSigs = new Set(own.map((o) => o.depositSignature));
  const ownRecipients = new Set(own.map((o) => o.recipient));
  const view: ChainView = { ...full, deposits: full.deposits.filter((d) => !ownSigs.has(d.signature)), payouts: full.payouts.filter((p) => !ownRecipients.has(p.recipient)) };
  const scheduleData = await learnSchedule(inputs.api, assets, view, inputs.wallets);
  const knowledge: AdversaryKnowledge = {
    schedule: scheduleFrom(scheduleData),
    policy: inputs.policy,
    latency: calibrate(ownDelaysS, inputs.policy, slotS),
    slotS,
    denominations: new Map(assets.map((a) => [a.assetId, new Set(a.denominations ?? [])])),
    commonAccounts: new Set([...PROGRAMS, ...assets.map((a) => a.mint), inputs.hush.feePayer, ...inputs.hush.pools]),
  };
  return { view, knowledge, scheduleData, ownDelaysS };
}
