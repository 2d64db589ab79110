/**
 * The SDK's receipt checks (packages/sdk/src/receipt-checks.ts), which the receipt-check page runs too: its
 * canonical JSON is exactly what Hush signs (the `canonicalize` package), its base58 is bs58's, and a receipt
 * signed as the receipt signer signs passes every check while each kind of tampering fails the check that
 * names it. No server: the receipt is signed here with the domain's own signing bytes.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { test } from 'node:test';
import bs58 from 'bs58';
import canonicalizeModule from 'canonicalize';
import fc from 'fast-check';
import { base58Bytes, canonicalJson, checkReceipt } from '../../packages/sdk/src/receipt-checks.ts';
import { verifyReceipt } from '../../packages/sdk/src/index.ts';
import { receiptSigningBytes, type ReceiptDocument } from '../../src/domain/receipt.ts';

const canonicalize = canonicalizeModule as unknown as (v: unknown) => string;

test('canonical JSON is the canonicalize package\'s, byte for byte', () => {
  fc.assert(fc.property(fc.jsonValue(), (v) => canonicalJson(v) === canonicalize(v)), { numRuns: 300 });
  assert.equal(canonicalJson({ b: [1, 'é', null, true], a: { 'é': 1, z: '\u2028', '\ud83d\ude00': 2 } }), canonicalize({ b: [1, 'é', null, true], a: { 'é': 1, z: '\u2028', '\ud83d\ude00': 2 } }));
});

test('base58 decodes as bs58 does, leading zeros included; anything else is null', () => {
  fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (bytes) => Buffer.from(base58Bytes(bs58.encode(bytes))!).equals(Buffer.from(bytes))), { numRuns: 300 });
  assert.equal(base58Bytes('0OIl'), null);
  assert.equal(base58Bytes(''), null);
});

function signed(): { receipt: { document: ReceiptDocument; algorithm: 'ed25519'; signature: string }; keyId: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const keyId = bs58.encode(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));
  const document: ReceiptDocument = {
    type: 'hush.disclosure_receipt', version: 1, trackingId: 'trk_2bJvQfJSfdEGjXaXikmv4o', status: 'completed',
    source: { assetId: 'usdc', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' }, destination: { assetId: 'usdc', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
    amountIn: '10000000', amountOut: '9752845', sender: '5SsPDfYc5U1daGRxBfmMYBtnydmvnFoy49vWLsSZtWcG', recipient: '2wuGNRMw8tBYiHfx8SqaJj4QvjS8GRVNUKhK6KrPeon9',
    deposit: { signature: '2bJvQfJSfdEGjXaXikmv4oetAPAFX9UzMYFY9AV5e2Ydm7hdSNT5dgcF9weZLsspFpDzdkuFwmLGYux51M6JoDuk', amount: '10000000', confirmedAt: '2026-11-25T17:40:00.922Z' },
    payouts: [{ signature: '56GUjpbU8idznDFzinSSwXMf3GKxPKmy8unJpLKD1EaRvFtmqSzbw9QJwEz1fKZTEt1yG6sfBD93krf8k7MtTTjY', amount: '9752845' }],
    releasedWith: null, refund: null, createdAt: '2026-11-25T17:40:00.238Z', finalAt: '2026-11-25T17:40:01.259Z',
    screening: [{ stage: 'deposit', result: 'clear', at: '2026-11-25T17:40:00.950Z', list: null, version: null }], issuedAt: '2026-11-25T17:40:01.291Z', keyId,
  };
  const signature = bs58.encode(sign(null, receiptSigningBytes(document), privateKey));
  return { receipt: { document, algorithm: 'ed25519', signature }, keyId };
}

const outcomes = (r: Awaited<ReturnType<typeof checkReceipt>>) => Object.fromEntries(r.checks.map((c) => [c.id, c.outcome]));

test('a receipt signed as Hush signs passes every check; each tampering fails the check that names it', async () => {
  const { receipt, keyId } = signed();
  const ok = await checkReceipt(receipt, [keyId]);
  assert.deepEqual(outcomes(ok), { format: 'passed', key: 'passed', signature: 'passed', amounts: 'passed' });
  assert.equal(ok.valid, true);
  assert.deepEqual(await verifyReceipt(receipt as never, [keyId]), { valid: true, keyId });
  // The keys as GET /transfer/v1/receipt-keys lists them do as well as their ids (they read as no key before).
  assert.deepEqual(await checkReceipt(receipt, [{ keyId, createdAt: '2026-01-01T00:00:00.000Z' } as { keyId: string }]), ok);

  const change = (f: (d: any) => void) => {
    const copy = structuredClone(receipt) as any;
    f(copy.document);
    return copy;
  };
  const more = await checkReceipt(change((d) => (d.amountOut = '9999999')), [keyId]);
  assert.deepEqual(outcomes(more), { format: 'passed', key: 'passed', signature: 'failed', amounts: 'failed' });
  assert.equal(more.failed, 'signature');
  assert.equal(more.checks.find((c) => c.id === 'amounts')!.field, 'amountOut');
  assert.deepEqual(outcomes(await checkReceipt(change((d) => (d.recipient = d.sender)), [keyId])), { format: 'passed', key: 'passed', signature: 'failed', amounts: 'passed' });
  assert.deepEqual(outcomes(await checkReceipt(change((d) => (d.extra = 'added')), [keyId])), { format: 'passed', key: 'passed', signature: 'failed', amounts: 'passed' });
  assert.deepEqual(outcomes(await checkReceipt(receipt, [])), { format: 'passed', key: 'failed', signature: 'skipped', amounts: 'passed' });
  assert.deepEqual(outcomes(await checkReceipt({ ...receipt, signature: 'abc' }, [keyId])), { format: 'passed', key: 'passed', signature: 'failed', amounts: 'passed' });
  assert.deepEqual(outcomes(await checkReceipt({ hello: 1 }, [keyId])), { format: 'failed', key: 'skipped', signature: 'skipped', amounts: 'skipped' });
  // The SDK's verifyReceipt keeps its answers.
  assert.deepEqual(await verifyReceipt(change((d) => (d.amountOut = '1')) as never, [keyId]), { valid: false, reason: 'bad_signature' });
  assert.deepEqual(await verifyReceipt(receipt as never, []), { valid: false, reason: 'unknown_key' });
  assert.deepEqual(await verifyReceipt({ ...receipt, signature: 'abc' } as never, [keyId]), { valid: false, reason: 'malformed' });
});
