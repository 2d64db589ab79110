// Addresses, tracking ids and transaction signatures on the console's cards (docs/compliance.md "The console"):
// an address or a signature links to the explorer the server names (HUSH_EXPLORER_ADDRESS_URL, HUSH_EXPLORER_TX_URL;
// `none`: plain text), opened in a new tab with neither opener nor referrer; each has a Copy button beside it, which
// says "Copied" or, when the browser refuses the clipboard (an http page not on this machine, a denied permission),
// selects the text and says how to copy it by hand.
import { announce, el } from './console-kit.js';

let explorer = { address: null, tx: null };
/** What the server publishes in /console/config.json (`explorer`: each template, or null for no links). */
export const setExplorer = (e) => (explorer = { address: e?.address ?? null, tx: e?.tx ?? null });

const PLACEHOLDER = { address: '{address}', tx: '{signature}' };

/** The explorer page of `id`, an address (`kind` address) or a signature (`kind` tx); null when links are off. */
export function explorerHref(kind, id) {
  const template = explorer[kind];
  return template ? template.replace(PLACEHOLDER[kind], encodeURIComponent(id)) : null;
}

/**
 * `id` as a card shows it: an explorer link for an address or a signature (`kind` address | tx), plain for a
 * tracking id (`kind` null), with its Copy button. `what` names it for a screen reader ("the sender address").
 */
export function copyable(kind, id, what) {
  if (!id) return '—';
  const href = kind ? explorerHref(kind, id) : null;
  const shown = href
    ? el('a', { href, target: '_blank', rel: 'noopener noreferrer', class: 'mono', 'data-explorer': kind }, id)
    : el('span', { class: 'mono' }, id);
  return el('span', { class: 'copyable' }, shown, ' ', copyButton(id, what, shown));
}

const COPIED_FOR_MS = 2000;

/** A Copy button for `value`; `shown` is the element that shows it (selected when the clipboard is refused). */
function copyButton(value, what, shown) {
  const label = el('span', { 'data-copy-label': '' }, 'Copy');
  const button = el('button', { type: 'button', class: 'copy secondary', 'data-copy': value }, label, el('span', { class: 'visually-hidden' }, ` ${what}`));
  let reset;
  button.addEventListener('click', async () => {
    button.parentElement.querySelector('[data-copy-refused]')?.remove();
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard here');
      await navigator.clipboard.writeText(value);
      label.textContent = 'Copied';
      button.classList.add('copied');
      announce(`Copied ${what}.`);
      clearTimeout(reset);
      reset = setTimeout(() => {
        label.textContent = 'Copy';
        button.classList.remove('copied');
      }, COPIED_FOR_MS);
    } catch {
      // The text is selected, so one key press copies it.
      const range = document.createRange();
      range.selectNodeContents(shown);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      const note = 'The browser refused the clipboard: the text is selected, press Ctrl+C (⌘C on a Mac) to copy it.';
      button.after(el('span', { class: 'copy-refused', 'data-copy-refused': '' }, ` ${note}`));
      announce(note);
    }
  });
  return button;
}
