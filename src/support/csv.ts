/**
 * CSV as RFC 4180 writes it (records end with CRLF; a field holding a comma, a double quote, CR or LF is quoted,
 * its quotes doubled), made safe to open in a spreadsheet: a field that starts with `=`, `+`, `-`, `@`, a tab or
 * a CR would be read as a formula (OWASP's "CSV injection"), so it gets a leading apostrophe and is shown as the
 * text it is. What a log holds comes partly from outside (an operator's note, an address a partner sent).
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(value: string | null | undefined): string {
  let text = value ?? '';
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRecord(fields: readonly (string | null | undefined)[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}
