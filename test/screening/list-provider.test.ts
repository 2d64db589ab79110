/**
 * docs/spec.md §12 lists: the OFAC SDN forms and a plain list are read; only SOL entries are kept; a
 * malformed entry is reported with its line and skipped; a changed file is reloaded without a restart;
 * an unreadable one keeps its last good content and alerts.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { parseList } from '../../src/screening/list-parsing.ts';
import { ListProvider } from '../../src/screening/list-provider.ts';
import { systemClock } from '../../src/support/clock.ts';

const dir = mkdtempSync(join(tmpdir(), 'hush-screening-lists-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const newAddress = async () => (await generateKeyPairSigner()).address as string;

describe('screening lists: parsing', () => {
  it('OFAC SDN CSV: SOL addresses from the remarks; other currencies ignored; a bad SOL entry named by its line', async () => {
    const [a, b] = [await newAddress(), await newAddress()];
    const csv = [
      '36216,"SOME ENTITY","-0-","-0-","-0-","-0-","-0-","-0-","-0-","Digital Currency Address - XBT 1BQAPyku1ZibWGAgd8QePpW1vAKHowqLez; Digital Currency Address - SOL ' + a + ';"',
      '36217,"OTHER","-0-","-0-","-0-","-0-","-0-","-0-","-0-","Digital Currency Address - ETH 0x7F367cC41522cE07553e823bf3be79A889DEbe1B"',
      '36218,"THIRD","-0-","-0-","-0-","-0-","-0-","-0-","-0-","Digital Currency Address - SOL notAnAddress0; Digital Currency Address - SOL ' + b + '"',
    ].join('\n');
    const parsed = parseList(csv, 'sdn.csv');
    assert.equal(parsed.form, 'ofac_csv');
    assert.deepEqual([...parsed.addresses].sort(), [a, b].sort());
    assert.deepEqual(parsed.errors, [{ line: 3, message: 'not a Solana address: "notAnAddress0"' }]);
  });

  it('OFAC SDN XML: idType SOL followed by its idNumber, across lines', async () => {
    const a = await newAddress();
    const xml = `<?xml version="1.0" standalone="yes"?>
<sdnList>
  <sdnEntry><uid>1</uid><idList>
    <id><uid>9</uid><idType>Digital Currency Address - XBT</idType><idNumber>1BQAPyku1ZibWGAgd8QePpW1vAKHowqLez</idNumber></id>
    <id><uid>10</uid><idType>Digital Currency Address - SOL</idType>
      <idNumber>${a}</idNumber></id>
    <id><uid>11</uid><idType>Digital Currency Address - SOL</idType><idNumber>0xnope</idNumber></id>
  </idList></sdnEntry>
</sdnList>`;
    const parsed = parseList(xml, 'sdn.xml');
    assert.equal(parsed.form, 'ofac_xml');
    assert.deepEqual([...parsed.addresses], [a]);
    assert.deepEqual(parsed.errors, [{ line: 7, message: 'not a Solana address: "0xnope"' }]);
  });

  it('plain: one address a line, comments and blanks skipped, a malformed line reported by number', async () => {
    const [a, b] = [await newAddress(), await newAddress()];
    const parsed = parseList(`# operator list\n${a}\n\n  ${b}  # trailing comment\nnot base58 !\n`, 'own.txt');
    assert.equal(parsed.form, 'plain');
    assert.deepEqual([...parsed.addresses].sort(), [a, b].sort());
    assert.deepEqual(parsed.errors, [{ line: 5, message: 'not a Solana address: "not base58 !"' }]);
  });
});

describe('screening lists: the provider', () => {
  it('blocks a listed address with the list name and version; reloads a changed file; keeps the last good one when unreadable', async () => {
    const [a, b] = [await newAddress(), await newAddress()];
    const path = join(dir, 'blocked.txt');
    writeFileSync(path, `${a}\nbad line\n`);
    const skipped: string[] = [];
    const unreadable: string[] = [];
    const provider = new ListProvider([path, join(dir, 'missing.txt')], systemClock, {
      skipped: (list, line) => skipped.push(`${list}:${line}`),
      unreadable: (list) => unreadable.push(list),
    });
    await provider.refresh();
    assert.deepEqual(skipped, ['blocked.txt:2']);
    assert.deepEqual(unreadable, ['missing.txt'], 'a list that cannot be read at start alerts, and does not stop the others');
    const first = provider.check(a);
    assert.equal(first.result, 'blocked');
    assert.equal(first.result === 'blocked' && first.list, 'blocked.txt');
    const version = first.result === 'blocked' ? first.version : '';
    assert.match(version, /^[0-9a-f]{16}$/);
    assert.deepEqual(provider.check(b), { result: 'clear' });

    writeFileSync(path, `${a}\n${b}\n`);
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    await provider.refresh();
    const second = provider.check(b);
    assert.equal(second.result, 'blocked', 'a sender added to the list is blocked without a restart');
    assert.notEqual(second.result === 'blocked' && second.version, version);

    unlinkSync(path);
    await provider.refresh();
    assert.ok(unreadable.includes('blocked.txt'), 'an unreadable list alerts');
    assert.equal(provider.check(b).result, 'blocked', 'the last good content stays in use');
  });

  it('an unreadable file (permissions) at reload keeps the last good one', async () => {
    if (process.getuid?.() === 0) return; // root reads anything
    const a = await newAddress();
    const path = join(dir, 'perm.txt');
    writeFileSync(path, `${a}\n`);
    const provider = new ListProvider([path], systemClock);
    await provider.refresh();
    writeFileSync(path, `${a}\n${a}\n`);
    chmodSync(path, 0o000);
    await provider.refresh();
    assert.equal(provider.check(a).result, 'blocked');
  });

  it('a comment naming "Digital Currency Address" in a plain list leaves it plain; a reload to fewer than half keeps the last good set and alerts', async () => {
    const addresses = await Promise.all(Array.from({ length: 11 }, newAddress));
    const path = join(dir, 'own-list.txt');
    writeFileSync(path, `${addresses.join('\n')}\n`);
    const shrunk: string[] = [];
    const provider = new ListProvider([path], systemClock, { shrunk: (list, kept, parsed) => shrunk.push(`${list}:${kept}->${parsed}`) });
    await provider.refresh();
    assert.equal(provider.loaded()[0]!.addresses.size, 11);

    // The attack: one comment line, and the list used to parse as OFAC CSV, i.e. to nothing.
    writeFileSync(path, `# Digital Currency Address list kept by compliance\n${addresses.join('\n')}\n`);
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    await provider.refresh();
    assert.equal(provider.loaded()[0]!.addresses.size, 11, 'the comment changes nothing');
    assert.equal(provider.check(addresses[3]!).result, 'blocked');

    // A file whose content truly parses to a handful (a truncated download): refused, the set in use stays.
    writeFileSync(path, `${addresses.slice(0, 3).join('\n')}\n`);
    utimesSync(path, new Date(), new Date(Date.now() + 10_000));
    await provider.refresh();
    await provider.refresh();
    assert.deepEqual(shrunk, ['own-list.txt:11->3'], 'alerted once per content');
    assert.equal(provider.check(addresses[10]!).result, 'blocked', 'the last good set stays in use');
    // A declared header decides the form of a file whose name does not.
    const declared = parseList(`# hush-list: ofac-csv\n1,"X","Digital Currency Address - SOL ${addresses[0]};"\n`, 'feed.dat');
    assert.equal(declared.form, 'ofac_csv');
    assert.deepEqual([...declared.addresses], [addresses[0]]);
  });

  it('a version is what the list holds: a touch, new comments, another order or a restart keep it; the same listing keeps its reason, a new SDN entry for the address is a new one', async () => {
    const [a, b, c] = [await newAddress(), await newAddress(), await newAddress()];
    const path = join(dir, 'daily-sdn.csv');
    const row = (ent: number, name: string, address: string) => `${ent},"${name}","-0-","-0-","-0-","-0-","-0-","-0-","-0-","Digital Currency Address - SOL ${address};"`;
    writeFileSync(path, [row(36216, 'SOME ENTITY', a), row(36217, 'OTHER', b)].join('\n'));
    let clockMs = Date.parse('2026-11-01T00:00:00Z');
    const clock = { ...systemClock, now: () => clockMs, date: () => new Date(clockMs) };
    const provider = new ListProvider([path], clock);
    await provider.refresh();
    const first = provider.check(a);
    assert.ok(first.result === 'blocked');
    assert.equal(first.reason, 'listed (SDN entry 36216)', 'the reason names the listing');
    const version = first.version;

    // A touch (same bytes, later mtime), read a day later: read again, same version.
    clockMs += 86_400_000;
    utimesSync(path, new Date(), new Date(Date.now() + 5000));
    await provider.refresh();
    assert.equal(provider.loaded()[0]!.loadedAt, '2026-11-02T00:00:00.000Z', 'the file was read again');
    assert.deepEqual(provider.check(a), first, 'a re-read of the same bytes is the same finding');

    // The next daily file: the same entries reordered, a record's other fields edited: same listings, same version.
    writeFileSync(path, [row(36217, 'OTHER (ALIAS ADDED)', b), row(36216, 'SOME ENTITY', a)].join('\n'));
    utimesSync(path, new Date(), new Date(Date.now() + 10_000));
    await provider.refresh();
    assert.deepEqual(provider.check(a), first);

    // A restart: a new provider reading the same file.
    const restarted = new ListProvider([path], clock);
    await restarted.refresh();
    assert.deepEqual(restarted.check(a), first);

    // Another address listed: a new version, but the address's own listing (its reason) is unchanged.
    writeFileSync(path, [row(36216, 'SOME ENTITY', a), row(36217, 'OTHER', b), row(36300, 'NEW', c)].join('\n'));
    utimesSync(path, new Date(), new Date(Date.now() + 15_000));
    await provider.refresh();
    const later = provider.check(a);
    assert.ok(later.result === 'blocked');
    assert.notEqual(later.version, version, 'the list holds something new');
    assert.equal(later.reason, first.reason, 'the same listing of this address');

    // The address named by a new entry (delisted with its entity, listed again with another): a new listing.
    writeFileSync(path, [row(36217, 'OTHER', b), row(36300, 'NEW', c), row(36400, 'SUCCESSOR', a)].join('\n'));
    utimesSync(path, new Date(), new Date(Date.now() + 20_000));
    await provider.refresh();
    const relisted = provider.check(a);
    assert.equal(relisted.result === 'blocked' && relisted.reason, 'listed (SDN entry 36400)');

    // A plain list's lines are its listings: no entry number.
    const plainPath = join(dir, 'plain-version.txt');
    writeFileSync(plainPath, `# kept by compliance\n${a}\n${b}\n`);
    const plain = new ListProvider([plainPath], clock);
    await plain.refresh();
    const p1 = plain.check(a);
    writeFileSync(plainPath, `${b}\n# reordered, another comment\n${a}\n`);
    utimesSync(plainPath, new Date(), new Date(Date.now() + 5000));
    await plain.refresh();
    assert.deepEqual(plain.check(a), p1, 'comments and order are not what a list holds');
    assert.equal(p1.result === 'blocked' && p1.reason, 'listed');
  });

  it('an SDN XML entry is named by its uid', async () => {
    const a = await newAddress();
    const xml = `<?xml version="1.0" standalone="yes"?>
<sdnList>
  <sdnEntry>
    <uid>51234</uid><lastName>SOMEONE</lastName>
    <idList><id><uid>77</uid><idType>Digital Currency Address - SOL</idType><idNumber>${a}</idNumber></id></idList>
  </sdnEntry>
</sdnList>`;
    assert.deepEqual([...parseList(xml, 'sdn.xml').entries], [[a, '51234']]);
  });
});
