import { isAddress } from '@solana/kit';

/**
 * docs/spec.md §12 list files, in the forms an operator has at hand: the OFAC SDN list as published
 * (sdn.csv, whose remarks carry `Digital Currency Address - SOL <address>;`, and sdn.xml, whose
 * `<idType>Digital Currency Address - SOL</idType>` is followed by `<idNumber>`), or one address a line
 * (`#` starts a comment). Only SOL entries are kept: an address of another chain cannot name a Solana
 * wallet. A malformed entry is reported with its line number and skipped; it never fails the file.
 */

export interface ParsedList {
  form: 'ofac_csv' | 'ofac_xml' | 'plain';
  addresses: Set<string>;
  errors: { line: number; message: string }[];
}

const CSV_ENTRY = /Digital Currency Address - SOL\s+([^;"\s]*)/g;
const XML_ENTRY = /<idType>\s*Digital Currency Address - SOL\s*<\/idType>\s*<idNumber>\s*([^<]*?)\s*<\/idNumber>/g;

export function parseList(text: string): ParsedList {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('<')) return fromPattern(text, XML_ENTRY, 'ofac_xml');
  if (text.includes('Digital Currency Address')) return fromPattern(text, CSV_ENTRY, 'ofac_csv');
  return plain(text);
}

function fromPattern(text: string, pattern: RegExp, form: ParsedList['form']): ParsedList {
  const out: ParsedList = { form, addresses: new Set(), errors: [] };
  const starts = lineStarts(text);
  for (const m of text.matchAll(pattern)) {
    const value = m[1]!;
    if (isAddress(value)) out.addresses.add(value);
    else out.errors.push({ line: lineOf(starts, m.index), message: `not a Solana address: "${value.slice(0, 60)}"` });
  }
  return out;
}

function plain(text: string): ParsedList {
  const out: ParsedList = { form: 'plain', addresses: new Set(), errors: [] };
  text.split(/\r?\n/).forEach((raw, i) => {
    const value = raw.replace(/#.*/, '').trim();
    if (value === '') return;
    if (isAddress(value)) out.addresses.add(value);
    else out.errors.push({ line: i + 1, message: `not a Solana address: "${value.slice(0, 60)}"` });
  });
  return out;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line of a character index (binary search over the line starts). */
function lineOf(starts: number[], index: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
