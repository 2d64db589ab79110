/**
 * One entry point confirms a deposit: `confirmFundedOrders` (src/settlement/confirm-funded-orders.ts) screens,
 * attributes, builds each confirmation's record (`depositConfirmation`), writes it through the store's writer
 * (`confirmDeposits`) and records the payouts already due. Its callers are the deposit watch, the order loop
 * and the deposit hint, each under its own lease holder; no other file of src/ calls the writer or builds a
 * record, so no caller can assemble its own steps around them (the hint once did: no screening, its own claim
 * loop). Read in code only: comments may name them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { it } from 'node:test';
import { lex, sourceFiles } from '../support/source-scan.ts';

const SRC = join(import.meta.dirname, '../../src');
const ENTRY = 'settlement/confirm-funded-orders.ts';
/** Who may name each piece in code: the entry point, where it is declared, and the writers' list (a re-export the lifecycle's test loads). */
const PIECES: Record<string, readonly string[]> = {
  confirmDeposits: [ENTRY, 'store/settlement/confirm-deposits.ts', 'store/order-writers.ts'],
  depositConfirmation: [ENTRY, 'ledger/deposit-confirmation.ts'],
};
// The chain check too: a deposit the chain shows for an order whose payout it adopts (docs/decisions.md "The chain is the record").
const CALLERS = ['services/deposit-hint-service.ts', 'settlement/chain-truth/chain-check.ts', 'settlement/fast-path/deposit-watch.ts', 'settlement/orders.ts'];

const files = sourceFiles(SRC).map((f) => ({ rel: relative(SRC, f), code: lex(readFileSync(f, 'utf8')).code }));
const naming = (word: string) => files.filter((f) => new RegExp(`\\b${word}\\b`).test(f.code)).map((f) => f.rel).sort();

it('no file but the entry point calls the store writer of a confirmation or builds its record', () => {
  for (const [piece, allowed] of Object.entries(PIECES)) assert.deepEqual(naming(piece).filter((f) => !allowed.includes(f)), [], piece);
});

it('the entry point is called by the deposit watch, the order loop, the deposit hint and the chain check, and nothing else', () => {
  const calling = files.filter((f) => f.rel !== ENTRY && /\bconfirmFundedOrders\s*\(/.test(f.code)).map((f) => f.rel).sort();
  assert.deepEqual(calling, CALLERS);
});

it('reads code, not comments or strings', () => {
  assert.doesNotMatch(lex("// confirmDeposits(db)\nconst m = 'confirmDeposits';").code, /confirmDeposits/);
  assert.match(lex('await confirmDeposits(db, claim, items);').code, /confirmDeposits/);
});
