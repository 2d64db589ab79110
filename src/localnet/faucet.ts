import { KeyObject, sign } from 'node:crypto';
import {
  appendTransactionMessageInstructions,
  blockhash as toBlockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
  type Instruction,
  type SignatureBytes,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  getCreateAssociatedTokenIdempotentInstruction,
  getMintToInstruction,
  getSyncNativeInstruction,
} from '@solana-program/token';
import type { LocalChain, SubmitResult } from './local-chain.ts';
import { NATIVE_MINT, parseMint } from './token-accounts.ts';
import { associatedTokenAddress } from '../domain/associated-token-address.ts';

export class FaucetError extends Error {}

async function sendFromFaucet(chain: LocalChain, instructions: Instruction[]): Promise<SubmitResult> {
  // Identical requests in one slot would make byte-identical transactions (ed25519 is deterministic);
  // step back through still-valid blockhashes until the transaction is new.
  for (let back = 0n; back < 100n && back <= chain.slot; back++) {
    const slot = chain.slot - back;
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(chain.faucet, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(chain.blockhashAt(slot)), lastValidBlockHeight: slot + 150n }, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const signed = signByFaucet(chain, compileTransaction(message));
    if (chain.signatureStatus(getSignatureFromTransaction(signed)) !== null) continue;
    return chain.submit(new Uint8Array(Buffer.from(getBase64EncodedWireTransaction(signed), 'base64')));
  }
  throw new FaucetError('too many identical faucet requests; retry in a moment');
}

/**
 * The faucet's signature, made on the event loop (node:crypto) rather than by WebCrypto on the thread pool:
 * an airdrop then lands in the order it was asked for, whatever else runs (the simulator's seeds decide it).
 */
function signByFaucet<T extends ReturnType<typeof compileTransaction>>(chain: LocalChain, tx: T): T {
  const key = KeyObject.from(chain.faucet.keyPair.privateKey);
  const signature = sign(null, tx.messageBytes as unknown as Uint8Array, key) as unknown as SignatureBytes;
  return { ...tx, signatures: { ...tx.signatures, [chain.faucet.address]: signature } };
}

function signatureOf(result: SubmitResult): string {
  if (result.kind !== 'landed' || result.record.meta.err !== null) {
    throw new FaucetError(`faucet transaction failed: ${JSON.stringify(result.kind === 'rejected' ? result.err : result.kind)}`);
  }
  return result.signature;
}

/** `requestAirdrop`: a real system transfer from the faucet, so it has a signature and history like any other. */
export async function airdropLamports(chain: LocalChain, to: Address, lamports: bigint): Promise<string> {
  return signatureOf(await sendFromFaucet(chain, [getTransferSolInstruction({ source: chain.faucet, destination: to, amount: lamports })]));
}

/**
 * `localnet_requestTokenAirdrop`: mints `amount` base units of a local token into the owner's associated
 * token account (created if needed). For the native mint it wraps lamports instead.
 */
export async function airdropTokens(chain: LocalChain, owner: Address, mint: Address, amount: bigint): Promise<string> {
  const mintAccount = chain.getAccount(mint, 'processed');
  const parsed = mintAccount ? parseMint(mintAccount.owner, mintAccount.data) : null;
  if (!mintAccount || !parsed) throw new FaucetError(`${mint} is not a token mint on this chain`);
  const tokenProgram = mintAccount.owner;
  const ata = associatedTokenAddress(owner, mint, tokenProgram);
  const create = getCreateAssociatedTokenIdempotentInstruction({ payer: chain.faucet, owner, mint, ata, tokenProgram });
  if (mint === NATIVE_MINT) {
    return signatureOf(
      await sendFromFaucet(chain, [
        create,
        getTransferSolInstruction({ source: chain.faucet, destination: ata, amount }),
        getSyncNativeInstruction({ account: ata }, { programAddress: tokenProgram }),
      ]),
    );
  }
  if (parsed.mintAuthority !== chain.faucet.address) throw new FaucetError(`${mint} is not minted by the local faucet`);
  return signatureOf(
    await sendFromFaucet(chain, [create, getMintToInstruction({ mint, token: ata, mintAuthority: chain.faucet, amount }, { programAddress: tokenProgram })]),
  );
}
