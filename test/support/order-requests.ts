import type { Address } from '@solana/kit';

/** The standard quote request of a send. */
export function quoteRequest(sender: Address | string, recipient: Address | string, extra: Record<string, unknown> = {}) {
  return { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender as Address, recipientAddress: recipient as Address, ...extra };
}

/** The order request that repeats a quote and its request terms unchanged. */
export function orderRequest(quote: unknown, req: { senderAddress: string; recipientAddress: string; feeBps?: number; feeRecipientAddress?: string }) {
  return {
    quote,
    senderAddress: req.senderAddress,
    recipientAddress: req.recipientAddress,
    ...(req.feeBps !== undefined ? { feeBps: req.feeBps } : {}),
    ...(req.feeRecipientAddress !== undefined ? { feeRecipientAddress: req.feeRecipientAddress } : {}),
  };
}
