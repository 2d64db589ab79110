import type { HushClient } from './client.ts';
import { UsageError } from './cli-errors.ts';

/**
 * The account commands of `hush` (the partner's self-service): the JSON answer on stdout, what to do about
 * it on stderr (a secret is shown once; a revoked own key stops working).
 *   hush account
 *   hush webhook set <url> | clear | rotate-secret | test
 *   hush keys create [--expires-in <seconds>] | revoke <keyId>
 */
export const ACCOUNT_USAGE = `  account:     hush account   (settings, keys, webhook URL, rates; never a secret)
  webhook:     hush webhook set <url> | clear | rotate-secret | test
  keys:        hush keys create [--expires-in <s>] | revoke <keyId>   (rotate: create, deploy the new key, revoke the old)`;

/** Where the answers go: the JSON on stdout, the line about it on stderr. */
export interface AccountOutput {
  json(v: unknown): void;
  err(line: string): void;
}

export async function accountCommand(client: HushClient, command: string, args: string[], opts: { expiresIn?: string }, out: AccountOutput): Promise<number> {
  const { json } = out;
  const [sub, arg] = args;
  if (command === 'account') {
    json(await client.account());
    return 0;
  }
  if (command === 'webhook') {
    switch (sub) {
      case 'set': {
        if (!arg) throw new UsageError('hush webhook set needs the URL (https://…)');
        return secretShown(await client.setWebhook(arg), out);
      }
      case 'rotate-secret':
        return secretShown(await client.rotateWebhookSecret(), out);
      case 'clear':
        await client.clearWebhook();
        out.err('the account has no webhook now: no more events');
        return 0;
      case 'test':
        return json(await client.testWebhook()), 0;
      default:
        throw new UsageError('hush webhook set <url> | clear | rotate-secret | test');
    }
  }
  switch (sub) {
    case 'create': {
      const expiresInSeconds = opts.expiresIn === undefined ? undefined : Number(opts.expiresIn);
      if (expiresInSeconds !== undefined && !(Number.isInteger(expiresInSeconds) && expiresInSeconds > 0)) throw new UsageError(`--expires-in is whole seconds, got "${opts.expiresIn}"`);
      const created = await client.createKey(expiresInSeconds === undefined ? {} : { expiresInSeconds });
      json(created);
      out.err(`store apiKey now: it is shown this once. Deploy it, then revoke the key it replaces (hush keys revoke <keyId>)`);
      return 0;
    }
    case 'revoke': {
      if (!arg) throw new UsageError('hush keys revoke needs the key id (hush account lists them)');
      const key = await client.revokeKey(arg);
      json(key);
      if (key.current) out.err('that was the key in HUSH_API_KEY: it no longer authenticates; set HUSH_API_KEY to another key of the account');
      return 0;
    }
    default:
      throw new UsageError('hush keys create [--expires-in <s>] | revoke <keyId>');
  }
}

function secretShown(w: { url: string; secret: string; previousSecretExpiresAt: string | null }, out: AccountOutput): number {
  out.json(w);
  const grace = w.previousSecretExpiresAt ? `; the previous secret keeps signing beside it until ${w.previousSecretExpiresAt}` : '';
  out.err(`store the secret now: it is shown this once${grace}. Check the receiver with: hush webhook test`);
  return 0;
}
