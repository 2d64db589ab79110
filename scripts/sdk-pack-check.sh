#!/usr/bin/env bash
# npm run check:sdk-pack — packs @hush/sdk (prepack builds dist/), installs the tarball in a scratch
# project from the registry like a partner would, type-checks a small integration against it (strict,
# NodeNext; a code outside docs/spec.md §6 must not be an ErrorCode) and the README's integration example
# against it, imports it at run time and runs its bin.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(cd "$root/packages/sdk" && npm pack --silent --pack-destination "$scratch" >/dev/null)
cd "$scratch"
# The SDK README's pin (its "Install" section), so the install must not warn EBADENGINE on Node 20 (issue 53).
pin=$(awk '/^```json$/{f=1;next} f&&/^```$/{exit} f' "$root/packages/sdk/README.md")
node -e 'const pin = JSON.parse(process.argv[1]); console.log(JSON.stringify({ name: "scratch", private: true, type: "module", ...pin }))' "$pin" > package.json
echo '{ "compilerOptions": { "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true, "noEmit": true, "types": ["node"] }, "include": ["index.ts", "readme-example.ts"] }' > tsconfig.json
cat > index.ts <<'TS'
import { createHushClient, verifyDepositTransaction, signAndSend, verifyWebhook, HushApiError, type Quote, type ErrorCode } from '@hush/sdk';
import { generateKeyPairSigner, createSolanaRpc } from '@solana/kit';
const client = createHushClient({ baseUrl: 'http://127.0.0.1:8787', apiKey: process.env.HUSH_API_KEY ?? '' });
export async function run(): Promise<string> {
  const sender = await generateKeyPairSigner();
  const terms = { senderAddress: sender.address, recipientAddress: sender.address };
  const quote: Quote = await client.quote({ amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', ...terms });
  const order = await client.order(quote, terms);
  const asset = (await client.tokens()).find((t) => t.assetId === quote.sourceAssetId)!;
  await verifyDepositTransaction(order.transaction, { quote, senderAddress: sender.address, asset });
  await signAndSend(client, order, sender, { rpc: createSolanaRpc('http://127.0.0.1:8899') });
  return (await client.waitForFinal(order.trackingId)).status;
}
export const code = (e: unknown): ErrorCode | null => (e instanceof HushApiError ? e.code : null);
// @ts-expect-error a code outside docs/spec.md §6 is not an ErrorCode
export const bad: ErrorCode = 'NOPE';
export { verifyWebhook };
TS
# The README's integration example, as a partner would paste it.
awk '/^## Integrating/{f=1} f&&/^```ts$/{p=1;next} p&&/^```$/{exit} p' "$root/README.md" > readme-example.ts
test -s readme-example.ts
npm install --no-audit --no-fund ./hush-sdk-*.tgz typescript@5.9 @types/node@20 2>&1 | tee install.log >/dev/null
if grep -q EBADENGINE install.log; then cat install.log >&2; echo "sdk pack check: the install warned EBADENGINE" >&2; exit 1; fi
npx tsc -p .
node --input-type=module -e "const m = await import('@hush/sdk'); if (typeof m.createHushClient !== 'function') process.exit(1)"
npx hush --help >/dev/null
echo "sdk pack check: installs, type-checks, imports, bin runs ($(ls hush-sdk-*.tgz), $(du -k hush-sdk-*.tgz | cut -f1) KiB)"
