/**
 * A real OpenID Connect provider in this process (oidc-provider, its development sign-in pages: any login, any
 * password), for the console's single sign-on tests. On `localhost`, so its cookies are apart from Hush's on
 * 127.0.0.1. Each login `x` is the person with subject `x` and the verified email `x@example.com`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

export async function startIdentityProvider(redirectUri: string): Promise<TestIdentityProvider> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_q, r) => r.writeHead(503).end();
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const issuer = `http://localhost:${(server.address() as AddressInfo).port}`;
  const clientId = 'hush-console';
  const clientSecret = 'a-test-client-secret-of-thirty-two-chars';
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic' }],
    async findAccount(_ctx: unknown, sub: string) {
      return { accountId: sub, claims: async () => ({ sub, email: `${sub}@example.com`, email_verified: true, name: sub }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    pkce: { required: () => true },
    cookies: { keys: ['hush-tests-identity-provider-cookie-key'] },
  } as never);
  // Its warnings about development settings are for a real deployment, not this test.
  (provider as unknown as { on(e: string, f: () => void): void }).on('server_error', () => {});
  handle = provider.callback() as never;
  return {
    issuer,
    clientId,
    clientSecret,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
