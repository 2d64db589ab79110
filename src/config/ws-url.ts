const ENDPOINT = /^[^:]+:\/\/([^:[/]+|\[[^\]]+\])(:\d+)?(.*)$/i;

/**
 * The PubSub URL of a JSON-RPC endpoint the way Solana's web3.js derives it (makeWebsocketUrl): http→ws,
 * https→wss, and an explicit port moves to port + 1 (a validator's convention); no port, no change.
 */
export function wsUrlFromRpcUrl(rpcUrl: string): string {
  const m = ENDPOINT.exec(rpcUrl);
  if (!m) throw new Error(`not an http(s) URL: ${rpcUrl}`);
  const [, host, portWithColon, rest] = m;
  const protocol = rpcUrl.toLowerCase().startsWith('https:') ? 'wss:' : 'ws:';
  const port = portWithColon === undefined ? '' : `:${Number(portWithColon.slice(1)) + 1}`;
  return `${protocol}//${host}${port}${rest}`;
}
