// What a disclosure receipt states, in plain words: amounts in the asset's units, times in UTC, transactions
// as explorer links, screening as a sentence. Pure functions of the document and the page's configuration.

/** `units` base units of an asset with `decimals` decimals, as a decimal string ("10.5"); exact (BigInt). */
export function inUnits(units, decimals) {
  if (typeof units !== 'string' || !/^(0|[1-9][0-9]*)$/.test(units)) return String(units);
  const n = BigInt(units);
  const scale = 10n ** BigInt(decimals);
  const whole = (n / scale).toLocaleString('en-US');
  const frac = (n % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole;
}

/** "10.5 USDC", or the base units with the asset's id when the page does not know the asset. */
export function amountWords(units, assetId, assets) {
  const a = assets.find((x) => x.assetId === assetId);
  return a ? `${inUnits(units, a.decimals)} ${a.symbol}` : `${units} base units of ${assetId}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "21 Nov 2026, 10:00:00 UTC" (the receipt's times are UTC; every reader sees the same words). */
export function timeWords(iso) {
  const t = typeof iso === 'string' ? new Date(iso) : null;
  if (!t || Number.isNaN(t.getTime())) return String(iso);
  const p = (n) => String(n).padStart(2, '0');
  return `${t.getUTCDate()} ${MONTHS[t.getUTCMonth()]} ${t.getUTCFullYear()}, ${p(t.getUTCHours())}:${p(t.getUTCMinutes())}:${p(t.getUTCSeconds())} UTC`;
}

const STATUS = {
  completed: 'Completed: the recipient was paid.',
  refunded: 'Refunded: the deposit went back to the sender.',
  failed: 'Failed: the funds are held safely by Hush and an operator was alerted.',
  frozen: 'Frozen by the operator after screening: the funds are kept apart.',
};

const STAGE = { deposit: 'When the deposit arrived', payout: 'Before the payout was sent', resolution: 'The operator’s decision', quote: 'At the quote' };
const RESULT = { clear: 'clear', blocked: 'blocked by screening', error: 'could not be screened', release: 'released the order', refund: 'refunded the deposit', freeze: 'froze the funds' };

/** One sentence per screening entry; none: screening was off for this transfer. */
export function screeningWords(entries) {
  if (!Array.isArray(entries) || entries.length === 0) return ['No screening was run for this transfer (screening was off).'];
  return entries.map((e) => {
    const list = e.list ? ` (list ${e.list}${e.version ? `, version ${e.version}` : ''})` : '';
    return `${STAGE[e.stage] ?? e.stage}: ${RESULT[e.result] ?? e.result}${list}, ${timeWords(e.at)}.`;
  });
}

/**
 * The statement as [term, parts] pairs; a part is text or { text, href } (an explorer link). `config` is
 * what the server publishes beside the page: its assets and its explorer's transaction URL.
 */
export function statementOf(d, config) {
  const assets = config.assets ?? [];
  // HUSH_EXPLORER_TX_URL=none: the signature as text, no link.
  const tx = (signature) => (config.explorerTxUrl ? { text: signature, href: config.explorerTxUrl.replace('{signature}', encodeURIComponent(signature)) } : signature);
  const rows = [];
  const same = d.source?.assetId === d.destination?.assetId;
  rows.push(['Transfer', [`${d.trackingId}: ${same ? 'a private send' : 'a private swap'}`]]);
  rows.push(['Outcome', [STATUS[d.status] ?? d.status]]);
  rows.push(['Sent', [`${amountWords(d.amountIn, d.source?.assetId, assets)} from ${d.sender}`]]);
  rows.push(['To be delivered', [`${amountWords(d.amountOut, d.destination?.assetId, assets)} to ${d.recipient}`]]);
  if (d.deposit) rows.push(['Deposit', [`${amountWords(d.deposit.amount, d.source?.assetId, assets)}${d.deposit.confirmedAt ? `, confirmed ${timeWords(d.deposit.confirmedAt)}` : ''}, transaction `, tx(d.deposit.signature)]]);
  else rows.push(['Deposit', ['none arrived']]);
  if (Array.isArray(d.payouts) && d.payouts.length) {
    rows.push(['Paid to the recipient', d.payouts.flatMap((p, i) => [`${i ? '; ' : ''}${amountWords(p.amount, d.destination?.assetId, assets)} in transaction `, tx(p.signature)])]);
  }
  if (d.refund) rows.push(['Refunded to the sender', [`${amountWords(d.refund.amount, d.source?.assetId, assets)} (${d.refund.reason}) in transaction `, tx(d.refund.signature)]]);
  // One sentence per entry, spaced: as separate parts they ran together ("…10:00:00 UTC.Before the payout…").
  rows.push(['Screening', [screeningWords(d.screening).join(' ')]]);
  rows.push(['Created', [timeWords(d.createdAt)]]);
  rows.push(['Final', [timeWords(d.finalAt)]]);
  rows.push(['Receipt signed', [`${timeWords(d.issuedAt)} by receipt key ${d.keyId}`]]);
  return rows;
}
