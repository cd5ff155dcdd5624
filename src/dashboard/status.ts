/** Badges shared by pages: a campaign's status, a fraud score, a delivery's status. */
import { html } from 'lit';

export function statusBadge(status: string | undefined) {
  const kind = status === 'Active' ? 'ok' : status === 'Pause' ? 'warn' : '';
  const label = status === 'Pause' ? 'Paused' : status === 'End' ? 'Ended' : (status ?? '—');
  return html`<span class="badge ${kind}">${label}</span>`;
}

export function scoreBadge(score: string | undefined) {
  if (!score) return html`<span class="badge">not scored</span>`;
  const kind = score === 'high' ? 'danger' : score === 'medium' ? 'warn' : 'ok';
  return html`<span class="badge ${kind}">${score}</span>`;
}

export function deliveryBadge(status: string) {
  const kind = status === 'delivered' ? 'ok' : status === 'failed' ? 'danger' : 'warn';
  return html`<span class="badge ${kind}">${status}</span>`;
}
