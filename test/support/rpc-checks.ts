/** Helpers shared by the localnet JSON-RPC method tests. */
import assert from 'node:assert/strict';
import { getBase64Encoder, isSolanaError, type Address } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import { TOKEN_PROGRAM, type LocalRpc } from './localnet.ts';
export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const base64 = getBase64Encoder();

export async function ata(owner: Address, mint: Address): Promise<Address> {
  return (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM }))[0];
}

/** Kit turns every JSON number it is not told about into a bigint; compare error JSON by value. */
export function plain(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? Number(x) : x)));
}

export const CUSTOM_1 = { InstructionError: [0, { Custom: 1 }] };

export async function rejectsWithCode(p: Promise<unknown>, code: number): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isSolanaError(e), `expected a SolanaError, got ${String(e)}`);
    assert.equal((e.context as { __code: number }).__code, code, e.message);
    return true;
  });
}


export async function mintSupply(rpc: LocalRpc, mint: Address): Promise<bigint> {
  const info = (await rpc.getAccountInfo(mint, { encoding: 'jsonParsed', commitment: 'confirmed' }).send()).value;
  return BigInt((info?.data as { parsed: { info: { supply: string } } }).parsed.info.supply);
}
