import { isAddress } from '@solana/kit';

/**
 * docs/spec.md §12 list files, in the forms an operator has at hand: the OFAC SDN list as published
 * (sdn.csv, whose remarks carry `Digital Currency Address - SOL <address>;`, and sdn.xml, whose
 * `<idType>Digital Currency Address - SOL</idType>` is followed by `<idNumber>`), or one address a line
 * (`#` starts a comment); which form a file is comes from its name or a declared header (listForm). Only SOL entries are kept: an address of another chain cannot name a Solana
 * wallet. A malformed entry is reported with its line number and skipped; it never fails the file.
 */

export interface ParsedList {
  form: 'ofac_csv' | 'ofac_xml' | 'plain';
  addresses: Set<string>;
  /**
   * The listing behind each address: the SDN entry that names it (its `ent_num`, or the XML entry's `uid`), or
   * null in a plain list (the line is the address itself). A release covers a listing for as long as it stands
   * (docs/spec.md §12), so an entry must be named by what stays the same across OFAC's daily files.
   */
  entries: Map<string, string | null>;
  errors: { line: number; message: string }[];
}

const CSV_ENTRY = /Digital Currency Address - SOL\s+([^;"\s]*)/g;
const XML_ENTRY = /<idType>\s*Digital Currency Address - SOL\s*<\/idType>\s*<idNumber>\s*([^<]*?)\s*<\/idNumber>/g;

/**
 * The form a file declares: its extension (`.csv`, `.xml`), an XML declaration, or a first line
 * `# hush-list: ofac-csv | ofac-xml | plain`; anything else is a plain list. Never guessed from the
 * content's text: a comment naming "Digital Currency Address" in a plain list once made it parse as CSV
 * and empty the list (issue 49).
 */
export function listForm(name: string, text: string): ParsedList['form'] {
  const declared = /^#\s*hush-list:\s*(ofac-csv|ofac-xml|plain)\s*$/.exec(text.split(/\r?\n/, 1)[0] ?? '');
  if (declared) return declared[1] === 'ofac-csv' ? 'ofac_csv' : declared[1] === 'ofac-xml' ? 'ofac_xml' : 'plain';
  const ext = /\.([a-z]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (ext === 'csv') return 'ofac_csv';
  if (ext === 'xml' || text.trimStart().startsWith('<?xml')) return 'ofac_xml';
  return 'plain';
}

/** A list file's addresses, in the form its name or header declares (listForm). */
export function parseList(text: string, name: string): ParsedList {
  const form = listForm(name, text);
  if (form === 'ofac_xml') return fromPattern(text, XML_ENTRY, form);
  if (form === 'ofac_csv') return fromPattern(text, CSV_ENTRY, form);
  return plain(text);
}

function fromPattern(text: string, pattern: RegExp, form: ParsedList['form']): ParsedList {
  const out: ParsedList = { form, addresses: new Set(), entries: new Map(), errors: [] };
  const starts = lineStarts(text);
  for (const m of text.matchAll(pattern)) {
    const value = m[1]!;
    if (!isAddress(value)) {
      out.errors.push({ line: lineOf(starts, m.index), message: `not a Solana address: "${value.slice(0, 60)}"` });
      continue;
    }
    out.addresses.add(value);
    if (!out.entries.has(value)) out.entries.set(value, form === 'ofac_xml' ? xmlEntryOf(text, m.index) : csvEntryOf(text, starts, lineOf(starts, m.index)));
  }
  return out;
}

/** An SDN CSV record's first field (`ent_num`): the entity, however OFAC edits the record's other fields. */
function csvEntryOf(text: string, starts: number[], line: number): string | null {
  const start = starts[line - 1]!;
  return /^\s*"?(\d+)"?\s*,/.exec(text.slice(start, start + 32))?.[1] ?? null;
}

/** The `uid` of the `<sdnEntry>` around an index (the first `<uid>` after the entry's opening tag). */
function xmlEntryOf(text: string, index: number): string | null {
  const open = text.lastIndexOf('<sdnEntry', index);
  if (open < 0) return null;
  return /^<sdnEntry[^>]*>\s*<uid>\s*(\d+)\s*<\/uid>/.exec(text.slice(open, open + 200))?.[1] ?? null;
}

function plain(text: string): ParsedList {
  const out: ParsedList = { form: 'plain', addresses: new Set(), entries: new Map(), errors: [] };
  text.split(/\r?\n/).forEach((raw, i) => {
    const value = raw.replace(/#.*/, '').trim();
    if (value === '') return;
    if (isAddress(value)) {
      out.addresses.add(value);
      out.entries.set(value, null);
    } else out.errors.push({ line: i + 1, message: `not a Solana address: "${value.slice(0, 60)}"` });
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
