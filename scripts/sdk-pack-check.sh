#!/usr/bin/env bash
# npm run check:sdk-pack [-- <dir>] — the SDK as a partner installs it. Runs README.md's install commands (the block
# after `<!-- readme-install: sdk -->`: npm pack the SDK, whose prepack builds dist/, into the application, pin
# commander, install the tarball with @solana/kit from the registry) with APP set to a fresh directory outside the
# repository, and fails on any npm warning (EBADENGINE above all). Then, in that directory, it type-checks a small
# integration (strict, NodeNext; a code outside docs/spec.md §6 must not be an ErrorCode) and README.md's partner
# example (the block after `<!-- readme-example: partner -->`, saved as private-send.ts) against the installed
# tarball, imports the SDK at run time and runs its bin. TypeScript and @types/node are the repository's own, so the
# application installs nothing but what the README says.
#
# With a directory argument (it must not exist yet) the application is made there and kept: the README example test
# (test/docs/readme-example-outside.test.ts) runs the example in it against a started Hush. Without one, a
# temporary directory, removed at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${1:-}" ]; then
  app=$1
  mkdir "$app"
else
  app=$(mktemp -d)
  trap 'rm -rf "$app"' EXIT
fi
app=$(cd "$app" && pwd)
case "$app/" in "$root"/*) echo "sdk pack check: $app is inside the repository" >&2; exit 1 ;; esac

block() { awk -v m="<!-- readme-$1: $2 -->" '$0==m{f=1;next} f&&/^```/{if(p)exit; p=1; next} p' "$root/README.md"; }
install=$(block install sdk)
[ -n "$install" ] || { echo "sdk pack check: no install block in README.md" >&2; exit 1; }

# An application as `npm init -y` makes one, ESM as the example is written.
(cd "$app" && npm init -y >/dev/null && npm pkg set type=module)
# The README's commands as written, from the clone's root, with its APP line pointing at this directory.
(cd "$root" && APP="$app" bash -euo pipefail -c "$(printf '%s\n' "$install" | grep -v '^APP=')") > "$app/install.log" 2>&1 \
  || { cat "$app/install.log" >&2; echo "sdk pack check: the README's install commands failed" >&2; exit 1; }
if grep -Eiq 'npm warn|EBADENGINE' "$app/install.log"; then cat "$app/install.log" >&2; echo "sdk pack check: the install warned" >&2; exit 1; fi

cd "$app"
block example partner > private-send.ts
test -s private-send.ts
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
# typeRoots: the repository's @types (node), so the application needs no @types/node of its own.
cat > tsconfig.json <<JSON
{ "compilerOptions": { "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true, "noEmit": true, "skipLibCheck": true, "types": ["node"], "typeRoots": ["$root/node_modules/@types"] }, "include": ["index.ts", "private-send.ts"] }
JSON
node "$root/node_modules/typescript/bin/tsc" -p .
node --input-type=module -e "const m = await import('@hush/sdk'); if (typeof m.createHushClient !== 'function') process.exit(1)"
version=$(npx --no-install hush --version)
npx --no-install hush --help >/dev/null
echo "sdk pack check: installed as the README says, without a warning; type-checks, imports, hush $version runs ($(ls hush-sdk-*.tgz), $(du -k hush-sdk-*.tgz | cut -f1) KiB) in $app"
