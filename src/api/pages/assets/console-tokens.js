// "Your tokens" (docs/compliance.md "Named operators"): the signed-in operator's personal tokens for the admin
// CLI, made and revoked here. A new token is shown once, in this tab only; the listing never holds a secret.
import { $, announce, api, el, td } from './console-kit.js';
import { sentences } from './console-words.js';
import { timeWords } from './receipt-words.js';

export async function refreshTokens() {
  const { tokens } = await api('/admin/v1/me/tokens');
  $('tokens').replaceChildren(
    ...tokens.map((t) => {
      const state = t.revokedAt ? 'revoked' : t.expiresAt && t.expiresAt < new Date().toISOString() ? 'expired' : 'active';
      const revoke = el('button', { type: 'button', class: 'secondary', 'data-revoke': t.tokenId }, 'Revoke');
      revoke.addEventListener('click', async () => {
        revoke.disabled = true;
        try {
          await api(`/admin/v1/me/tokens/${encodeURIComponent(t.tokenId)}`, { method: 'DELETE' });
          announce(sentences(`Token ${t.label ?? t.tokenId} revoked`));
          await refreshTokens();
        } catch (e) {
          revoke.disabled = false;
          announce(`Refused: ${e.message}`);
        }
      });
      return el('tr', { 'data-token': t.tokenId }, td(t.label), td(timeWords(t.createdAt)), td(t.expiresAt ? timeWords(t.expiresAt) : 'never'), td(t.lastUsedAt ? timeWords(t.lastUsedAt) : 'not yet'), td(state), el('td', {}, state === 'active' ? revoke : null));
    }),
  );
}

export function wireTokens() {
  $('token-new').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const shown = $('token-shown');
    try {
      const t = await api('/admin/v1/me/tokens', { method: 'POST', body: { label: $('token-label').value.trim() } });
      $('token-label').value = '';
      shown.className = 'message ok';
      shown.replaceChildren(sentences('Your new token, shown this once: copy it now'), el('br'), el('code', { 'data-new-token': '' }, t.token));
    } catch (e) {
      shown.className = 'message bad';
      shown.textContent = `Refused: ${e.message}${e.code ? ` (${e.code})` : ''}`;
    }
    shown.hidden = false;
    await refreshTokens().catch(() => {});
  });
}

export function clearTokens() {
  $('tokens').replaceChildren();
  $('token-shown').replaceChildren();
  $('token-shown').hidden = true;
}
