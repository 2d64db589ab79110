/** SOLANA_WS_URL and LOCALNET_WS_PORT: explicit, or derived from the RPC URL the way web3.js does. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { wsUrlFromRpcUrl } from '../../src/config/ws-url.ts';
import { localnetConfigFromEnv } from '../../src/localnet/localnet-config.ts';
import { wsPortOf } from '../../src/localnet/start-localnet.ts';

test('wsUrlFromRpcUrl: http→ws, https→wss, an explicit port + 1, path and query kept', () => {
  assert.equal(wsUrlFromRpcUrl('http://127.0.0.1:8899'), 'ws://127.0.0.1:8900');
  assert.equal(wsUrlFromRpcUrl('https://api.mainnet-beta.solana.com'), 'wss://api.mainnet-beta.solana.com');
  assert.equal(wsUrlFromRpcUrl('https://rpc.example.com/key/abc?x=1'), 'wss://rpc.example.com/key/abc?x=1');
  assert.equal(wsUrlFromRpcUrl('http://[::1]:8899/'), 'ws://[::1]:8900/');
  assert.equal(wsUrlFromRpcUrl('HTTPS://Node.example:443/rpc'), 'wss://Node.example:444/rpc');
});

test('SOLANA_WS_URL: explicit wins; unset → derived from SOLANA_RPC_URL; neither → the embedded chain decides', () => {
  assert.equal(loadConfig({}).solanaWsUrl, undefined);
  assert.equal(loadConfig({ SOLANA_RPC_URL: 'http://10.0.0.5:8899' }).solanaWsUrl, 'ws://10.0.0.5:8900');
  assert.equal(loadConfig({ SOLANA_RPC_URL: 'https://rpc.example.com', SOLANA_WS_URL: 'wss://ws.example.com/x' }).solanaWsUrl, 'wss://ws.example.com/x');
  for (const bad of ['http://x:1', 'nope']) assert.throws(() => loadConfig({ SOLANA_WS_URL: bad }), ConfigError, bad);
});

test('LOCALNET_WS_PORT: unset → LOCALNET_PORT + 1 (0 stays ephemeral); set → that port', () => {
  assert.equal(loadConfig({}).localnetWsPort, undefined);
  assert.equal(loadConfig({ LOCALNET_WS_PORT: '9100' }).localnetWsPort, 9100);
  assert.throws(() => loadConfig({ LOCALNET_WS_PORT: '70000' }), ConfigError);
  assert.equal(wsPortOf(localnetConfigFromEnv({})), 8900);
  assert.equal(wsPortOf(localnetConfigFromEnv({ LOCALNET_PORT: '9000' })), 9001);
  assert.equal(wsPortOf(localnetConfigFromEnv({ LOCALNET_PORT: '0' })), 0);
  assert.equal(wsPortOf(localnetConfigFromEnv({ LOCALNET_PORT: '9000', LOCALNET_WS_PORT: '7000' })), 7000);
  assert.throws(() => localnetConfigFromEnv({ LOCALNET_WS_PORT: 'x' }));
});
