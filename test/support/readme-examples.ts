/**
 * The READMEs' runnable examples: the fenced ```ts block right after `<!-- readme-example: <name> -->`, exactly
 * as the README shows it (README.md's `partner`, packages/sdk/README.md's `sdk`).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The block after the marker in `readme` (a path from the repository's root). */
export function readmeExample(readme: string, name: string): string {
  const text = readFileSync(join(REPO_ROOT, readme), 'utf8');
  const MARKER = `<!-- readme-example: ${name} -->`;
  const at = text.indexOf(MARKER);
  assert.ok(at >= 0, `no ${MARKER}`);
  assert.equal(text.indexOf(MARKER, at + 1), -1, `more than one ${MARKER}`);
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(text.slice(at + MARKER.length));
  assert.ok(block, `no \`\`\`ts block after ${MARKER}`);
  // Only blank lines between the marker and the fence: the marker names the block right after it.
  assert.match(text.slice(at + MARKER.length, at + MARKER.length + block.index), /^\s*$/, 'the marker must sit right before the fence');
  return block[1]!;
}

export type PrivateSend = (sender: import('@solana/kit').TransactionSigner, recipient: string, usdcBaseUnits?: string, privacy?: { minAnonymitySet: number }) => Promise<{ signature: string; status: string; payouts: { signature: string }[] }>;
export type SendSol = (sender: import('@solana/kit').TransactionSigner, recipient: string, lamports?: string) => Promise<{ status?: string; releasedWith?: number | null; choices?: { amount: string; anonymitySet: number | null }[] }>;

/** What the examples print with console.log, kept between start() and stop(). */
export function capturedLog(): { printed: unknown[][]; start(): void; stop(): void } {
  const printed: unknown[][] = [];
  const real = console.log;
  return {
    printed,
    start: () => void (console.log = (...args: unknown[]) => void printed.push(args)),
    stop: () => void (console.log = real),
  };
}
