/**
 * kit does not validate answers: it upcasts numbers to bigint (except the paths its types keep as `number`)
 * and hands the rest over as typed. This checks an answer field by field against the shape kit's types
 * declare, so a field missing, extra, or of the wrong kind fails here instead of in a wallet.
 */
import assert from 'node:assert/strict';
import { isAddress } from '@solana/kit';

type Leaf = 'string' | 'bigint' | 'number' | 'boolean' | 'null' | 'address' | 'unknown';
export type Shape = Leaf | `${Leaf}|${Leaf}` | readonly [Shape] | { readonly [k: string]: Shape | `?${Leaf}` };

function leafOk(v: unknown, leaf: Leaf): boolean {
  if (leaf === 'unknown') return true;
  if (leaf === 'null') return v === null;
  if (leaf === 'address') return typeof v === 'string' && isAddress(v);
  return typeof v === leaf;
}

export function assertShape(v: unknown, shape: Shape, path = '$'): void {
  if (typeof shape === 'string') {
    const leaves = shape.split('|') as Leaf[];
    assert.ok(leaves.some((l) => leafOk(v, l)), `${path}: expected ${shape}, got ${typeof v} ${JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x))?.slice(0, 200)}`);
    return;
  }
  if (Array.isArray(shape)) {
    assert.ok(Array.isArray(v), `${path}: expected an array`);
    (v as unknown[]).forEach((x, i) => assertShape(x, shape[0] as Shape, `${path}[${i}]`));
    return;
  }
  assert.ok(typeof v === 'object' && v !== null && !Array.isArray(v), `${path}: expected an object`);
  const o = v as Record<string, unknown>;
  const spec = shape as Record<string, string | Shape>;
  for (const k of Object.keys(o)) assert.ok(k in spec, `${path}.${k}: not in kit's type`);
  for (const [k, s] of Object.entries(spec)) {
    const optional = typeof s === 'string' && s.startsWith('?');
    if (optional && !(k in o)) continue;
    assert.ok(k in o, `${path}.${k}: missing`);
    assertShape(o[k], (optional ? (s as string).slice(1) : s) as Shape, `${path}.${k}`);
  }
}

export const UI_TOKEN_AMOUNT: Shape = { amount: 'string', decimals: 'number', uiAmount: 'number|null', uiAmountString: 'string' };
export const TOKEN_BALANCE: Shape = { accountIndex: 'number', mint: 'address', owner: 'address', programId: 'address', uiTokenAmount: UI_TOKEN_AMOUNT };
export const PARSED_KEY: Shape = { pubkey: 'address', signer: 'boolean', writable: 'boolean', source: 'string' };
/** A parsed instruction or a partially decoded one (kit types both; `parsed` is the program's own JSON). */
export const UI_INSTRUCTION = {
  program: '?string', programId: 'address', parsed: '?unknown', accounts: '?unknown', data: '?string', stackHeight: 'number|null',
} as const satisfies Shape;
