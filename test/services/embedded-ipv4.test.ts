/**
 * Issue 50, finding 6: `https://[::ffff:0:a9fe:a9fe]/` (169.254.169.254 in SIIT's IPv4-translated form) passed the
 * webhook URL check. Every IPv6 form that carries an IPv4 address to a translator or a tunnel is judged by that
 * IPv4 address too: IPv4-mapped, SIIT, NAT64 (well-known and local-use), 6to4, Teredo, ISATAP, IPv4-compatible.
 * Both the set-time check (validateWebhookUrl) and the connect-time one (WebhookEgress.refusal) are asked.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateWebhookUrl } from '../../src/webhooks/webhook-url.ts';
import { WebhookEgress } from '../../src/webhooks/webhook-egress.ts';
import { isPublicAddress } from '../../src/webhooks/egress-ranges.ts';
import { isHushError } from '../../src/domain/errors.ts';

/** 169.254.169.254 (metadata), 10.0.0.7 (private) and 127.0.0.1 (loopback) in every embedded form. */
const REFUSED = [
  '::ffff:169.254.169.254',
  '::ffff:a9fe:a9fe',
  '::ffff:0:a9fe:a9fe', // SIIT (RFC 2765), the finding
  '::ffff:0:169.254.169.254',
  '0:0:0:0:ffff:0:a00:7', // SIIT, 10.0.0.7
  '::ffff:0:7f00:1', // SIIT, 127.0.0.1
  '64:ff9b::a9fe:a9fe', // NAT64 well-known prefix
  '64:ff9b::10.0.0.7',
  '64:ff9b:1::a9fe:a9fe', // NAT64 local-use prefix (RFC 8215)
  '64:ff9b:1:a9fe:a9:fe00::', // local-use, the /48 layout of RFC 6052
  '2002:a9fe:a9fe::1', // 6to4 of the metadata address
  '2002:a00:7::1', // 6to4 of 10.0.0.7
  '2002:7f00:1::1', // 6to4 of 127.0.0.1
  '2001:0:a9fe:a9fe::1', // Teredo server
  '2001:0:5db8:1:0:0:5601:5601', // Teredo client 169.254.169.254 (XOR-obfuscated)
  '2606:4700::5efe:a9fe:a9fe', // ISATAP interface id of the metadata address under a public prefix
  '2606:4700::200:5efe:10.0.0.7',
  '::169.254.169.254', // IPv4-compatible (deprecated)
  '::a9fe:a9fe',
];

test('every embedded-IPv4 form of a private, loopback or metadata address is refused by the URL check and at connect time', () => {
  const egress = new WebhookEgress({ loopback: false });
  for (const ip of REFUSED) {
    const url = `https://[${ip}]/latest/meta-data/`;
    assert.equal(isPublicAddress(ip), false, ip);
    assert.ok(egress.refusal(ip, 'https:'), `${ip} refused at connect time`);
    assert.throws(() => validateWebhookUrl(url), (e: unknown) => isHushError(e, 'WEBHOOK_URL_REFUSED') && e.details.reason === 'not_public', url);
  }
});

test('the same forms of a public IPv4 address, and plain public IPv6 addresses, pass', () => {
  // 93.184.215.14 = 5db8:d70e; 6to4 and ISATAP of it are routed as their IPv6 prefix is.
  for (const ip of ['::ffff:93.184.215.14', '::ffff:0:5db8:d70e', '64:ff9b::5db8:d70e', '2002:5db8:d70e::1', '2606:4700::5efe:5db8:d70e', '2606:4700:4700::1111', '2a00:1450:4001:82a::200e']) {
    assert.equal(isPublicAddress(ip), true, ip);
    assert.equal(validateWebhookUrl(`https://[${ip}]/hooks`), new URL(`https://[${ip}]/hooks`).href, ip);
  }
});
