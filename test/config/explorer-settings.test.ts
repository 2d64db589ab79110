/** The explorer pages the console and the receipt page link to (docs/spec.md §11: HUSH_EXPLORER_TX_URL, HUSH_EXPLORER_ADDRESS_URL). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

const links = (env: NodeJS.ProcessEnv) => {
  const c = loadConfig(env);
  return { tx: c.explorerTxUrl, address: c.explorerAddressUrl };
};

test('by default, Solana Explorer on the cluster Hush uses: the embedded chain by its local URL, devnet and testnet by name, else mainnet', () => {
  assert.deepEqual(links({}), {
    tx: 'https://explorer.solana.com/tx/{signature}?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899',
    address: 'https://explorer.solana.com/address/{address}?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899',
  });
  assert.equal(links({ LOCALNET_PORT: '9900' }).address, 'https://explorer.solana.com/address/{address}?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A9900');
  assert.deepEqual(links({ SOLANA_RPC_URL: 'https://api.devnet.solana.com' }), { tx: 'https://explorer.solana.com/tx/{signature}?cluster=devnet', address: 'https://explorer.solana.com/address/{address}?cluster=devnet' });
  assert.equal(links({ SOLANA_RPC_URL: 'https://api.testnet.solana.com' }).tx, 'https://explorer.solana.com/tx/{signature}?cluster=testnet');
  assert.equal(links({ SOLANA_RPC_URL: 'https://rpc.example.com/?api-key=secret' }).address, 'https://explorer.solana.com/address/{address}', 'mainnet; the RPC URL (and its key) never in a link');
  assert.equal(links({ SOLANA_RPC_URL: 'https://devnetwork.example.com' }).tx, 'https://explorer.solana.com/tx/{signature}', 'only a host part named devnet is devnet');
});

test('an operator sets either page with its placeholder, or none for no links; anything else refuses to start', () => {
  assert.deepEqual(links({ HUSH_EXPLORER_TX_URL: 'https://solscan.io/tx/{signature}', HUSH_EXPLORER_ADDRESS_URL: 'https://solscan.io/account/{address}' }), { tx: 'https://solscan.io/tx/{signature}', address: 'https://solscan.io/account/{address}' });
  assert.deepEqual(links({ HUSH_EXPLORER_TX_URL: 'none', HUSH_EXPLORER_ADDRESS_URL: 'none' }), { tx: null, address: null });
  for (const [name, value] of [
    ['HUSH_EXPLORER_ADDRESS_URL', 'https://solscan.io/account/'],
    ['HUSH_EXPLORER_ADDRESS_URL', 'javascript:alert({address})'],
    ['HUSH_EXPLORER_TX_URL', 'https://solscan.io/tx/{address}'],
    ['HUSH_EXPLORER_TX_URL', 'ftp://x/{signature}'],
  ] as const) assert.throws(() => loadConfig({ [name]: value }), (e) => e instanceof ConfigError && e.message.includes(name), `${name}=${value}`);
});
