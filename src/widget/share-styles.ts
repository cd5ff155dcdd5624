import { css } from 'lit';

/**
 * The share view's styles, loaded with it (./share-view.ts) and adopted by the element then, so that
 * the sign-up form's first load does not carry them. Same custom properties as ./styles.ts.
 */
export const shareStyles = css`
  h3 { margin: 0 0 0.5rem; font-size: 0.9375rem; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  [part='returning'] { margin: 1rem 0 0; font-size: 0.875rem; }
  [part='not-me'] {
    background: none;
    border: 0;
    padding: 0 0.25rem;
    min-height: var(--_control);
    color: var(--_accent);
    text-decoration: underline;
  }
  [part='offer'] { display: flex; gap: 0.75rem; align-items: flex-start; line-height: 1.45; }
  [part='offer'] > svg { flex: none; width: 1.5rem; height: 1.5rem; color: var(--_accent); margin-block-start: 0.1rem; }
  [part='offer'] strong { display: block; font-size: 1.0625rem; }
  [part='offer'] ul { margin: 0.125rem 0 0; padding: 0; list-style: none; font-size: 0.9375rem; }
  [part='link-box'] { display: grid; gap: 0.375rem; margin-block-end: 0.75rem; }
  [part='link-row'] { display: flex; gap: 0.5rem; align-items: stretch; }
  [part~='link'] {
    flex: 1;
    min-width: 0;
    resize: none;
    /* As tall as the link needs, so it is never cut (where field-sizing is not supported: rows=2, scrolling). */
    field-sizing: content;
    overflow-y: auto;
    font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
    font-size: 0.8125rem;
    line-height: 1.4;
    word-break: break-all;
    /* A URL reads left to right in every language. */
    direction: ltr;
    text-align: start;
  }
  [part~='copy'] { min-width: 6.5rem; }
  [part~='copy'][data-copied] { background: #047857; color: #fff; }
  [part~='native-share'] { width: 100%; margin-block-end: 0.75rem; }
  [part='share-links'] {
    display: grid;
    grid-template-columns: repeat(5, minmax(0, 1fr));
    gap: 0.5rem;
    margin: 0 0 1rem;
    padding: 0;
    list-style: none;
  }
  [part~='share-link'] {
    display: flex;
    flex-direction: column;
    align-items: center;
    justify-content: center;
    gap: 0.25rem;
    min-height: 3.75rem;
    padding: 0.5rem 0.125rem;
    border: 1px solid var(--_border);
    color: var(--_text);
    background: var(--_bg);
    text-decoration: none;
    font-size: 0.75rem;
    line-height: 1.1;
    text-align: center;
  }
  [part~='share-link']:hover { border-color: var(--_accent); background: var(--_tint); }
  [part='qr-box'] { display: flex; align-items: center; gap: 1rem; margin: 0 0 1rem; }
  [part='qr'] {
    flex: none;
    width: 7.5rem;
    height: 7.5rem;
    padding: 0.25rem;
    background: #fff;
    border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) / 2);
  }
  [part='qr'] svg { width: 100%; height: 100%; display: block; }
  [part='qr-box'] figcaption { color: var(--_muted); font-size: 0.875rem; line-height: 1.45; }
  [part='stats'] { display: grid; grid-template-columns: repeat(auto-fit, minmax(6.5rem, 1fr)); gap: 0.5rem; margin: 0 0 1rem; }
  [part='stats'] div { border: 1px solid var(--_border); border-radius: calc(var(--_radius) / 2); padding: 0.625rem 0.5rem; text-align: center; }
  dt { font-size: 0.75rem; color: var(--_muted); }
  dd { margin: 0.125rem 0 0; font-size: 1.375rem; font-weight: 700; font-variant-numeric: tabular-nums; }
  [part='progress'] { margin-block-end: 1rem; }
  [part='progress'] ol { display: grid; grid-template-columns: repeat(3, 1fr); gap: 0.5rem; margin: 0; padding: 0; list-style: none; font-size: 0.8125rem; line-height: 1.35; }
  [part='progress'] li { display: grid; justify-items: center; text-align: center; gap: 0.25rem; color: var(--_muted); }
  [part='progress'] li[data-step='current'] { color: var(--_text); font-weight: 600; }
  [part='step-marker'] {
    display: grid;
    place-items: center;
    width: 1.75rem;
    height: 1.75rem;
    border-radius: 50%;
    border: 2px solid var(--_border);
    background: var(--_bg);
    font-weight: 700;
  }
  [part='step-marker'] svg { width: 1rem; height: 1rem; }
  [data-step='done'] [part='step-marker'] { background: var(--_accent); border-color: var(--_accent); color: var(--_accent-text); }
  [data-step='current'] [part='step-marker'] { border-color: var(--_accent); color: var(--_accent); }
  [part='referrals'] { margin-block-end: 0.5rem; }
  [part='referrals'] ul { margin: 0; padding: 0; list-style: none; border: 1px solid var(--_border); border-radius: calc(var(--_radius) / 2); }
  /* Name and date on one line, the friend's status (a sentence, it can be long) under them. */
  [part='referrals'] li { display: grid; grid-template-columns: 1fr auto; align-items: baseline; gap: 0.25rem 0.75rem; padding: 0.5rem 0.75rem; }
  [part='referrals'] li + li { border-block-start: 1px solid var(--_border); }
  [part='referral-name'] { font-weight: 600; overflow-wrap: anywhere; }
  [part='referrals'] li > time { grid-area: 1 / 2; font-size: 0.8125rem; color: var(--_muted); }
  [part='referral-status'] {
    grid-column: 1 / -1;
    justify-self: start;
    padding: 0.125rem 0.5rem;
    border-radius: 999px;
    font-size: 0.75rem;
    font-weight: 600;
    background: #f3f4f6;
    color: #374151;
  }
  [part='referral-status'][data-status='qualified'] { background: #d1fae5; color: #065f46; }
  [part='referral-status'][data-status='in_review'] { background: #fef3c7; color: #92400e; }
  [part='referral-status'][data-status='pending'] { background: #dbeafe; color: #1e40af; }
  [part='referral-status'][data-status='refunded'] { background: #fee2e2; color: #991b1b; }
  [part='referrals-empty'] { font-size: 0.875rem; }
  [part='leaderboard'] { margin-block-end: 1rem; }
  [part='waitlist'] { margin-block-end: 1rem; padding: 0.75rem; border: 1px solid var(--_border); border-radius: calc(var(--_radius) / 2); }
  [part='waitlist'] p { margin: 0; }
  [part='waitlist-position'] { font-weight: 600; font-variant-numeric: tabular-nums; }
  [part='waitlist-hint'] { color: var(--_muted); font-size: 0.8125rem; margin-block-start: 0.25rem !important; }
  [part='leaderboard-list'] { margin: 0; padding: 0; list-style: none; border: 1px solid var(--_border); border-radius: calc(var(--_radius) / 2); font-size: 0.875rem; }
  [part='leaderboard-list'] li { display: grid; grid-template-columns: 2.5rem 1fr auto; align-items: baseline; gap: 0.75rem; padding: 0.5rem 0.75rem; }
  [part='leaderboard-list'] li + li { border-block-start: 1px solid var(--_border); }
  [part='leaderboard-rank'] { font-weight: 600; font-variant-numeric: tabular-nums; }
  [part='leaderboard-name'] { overflow-wrap: anywhere; }
  [part='leaderboard-count'], [part='leaderboard-empty'] { color: var(--_muted); font-size: 0.8125rem; }
  [part='my-rank'] { font-size: 0.875rem; margin: 0 0 0.5rem; }
  [part='pending'], [part='milestones'], [part='codes'] { margin-block-end: 1rem; }
  [part='codes'] ul { margin: 0; padding: 0; list-style: none; font-size: 0.875rem; }
  [part='codes'] li { display: grid; gap: 0.25rem; padding: 0.375rem 0; }
  [part='codes'] li + li { border-block-start: 1px solid var(--_border); }
  [part='reward-code-label'], [part='codes-waiting'] { color: var(--_muted); font-size: 0.8125rem; }
  [part='codes-waiting'] { margin: 0.375rem 0 0; }
  [part='promotion'] { display: grid; gap: 0.25rem; margin-block-start: 0.5rem; font-size: 0.875rem; }
  [part='reward-code-row'], [part='promotion-code-row'] { display: flex; gap: 0.5rem; align-items: center; }
  [part='reward-code'], [part='promotion-code'] {
    flex: 1;
    min-width: 0;
    overflow-wrap: anywhere;
    padding: 0.375rem 0.5rem;
    border: 1px dashed var(--_border);
    border-radius: calc(var(--_radius) / 2);
    font: 600 0.9375rem/1.3 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
    user-select: all;
  }
  [part='pending'] p { margin: 0 0 0.375rem; font-size: 0.8125rem; color: var(--_muted); }
  [part='pending'] ul, [part='milestones'] ul { margin: 0; padding: 0; list-style: none; font-size: 0.875rem; line-height: 1.4; }
  [part='pending'] li { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0 0.75rem; padding: 0.375rem 0; }
  [part='pending'] li + li { border-block-start: 1px solid var(--_border); }
  [part='pending-label'] { color: var(--_muted); }
  [part='milestones'] label { display: block; font-size: 0.875rem; font-weight: 400; }
  [part='milestone-progress'] { display: block; width: 100%; height: 0.5rem; margin: 0.375rem 0 0.5rem; accent-color: var(--_accent); }
  [part='milestones'] li { display: flex; gap: 0.375rem; align-items: center; }
  [part='milestones'] li svg { flex: none; width: 1rem; height: 1rem; color: #047857; }
  [part='owed'] {
    padding: 0.625rem 0.75rem;
    border-radius: calc(var(--_radius) / 2);
    border-inline-start: 4px solid #b91c1c;
    background: #fef2f2;
    color: #7f1d1d;
    font-size: 0.875rem;
  }
  [part='campaign-state'] {
    padding: 0.625rem 0.75rem;
    border-radius: calc(var(--_radius) / 2);
    border-inline-start: 4px solid #b45309;
    background: #fffbeb;
    color: #78350f;
  }
  @container (max-width: 26rem) {
    [part='link-row'] { flex-direction: column; }
    [part='share-links'] { gap: 0.375rem; }
    [part~='share-link'] { font-size: 0.6875rem; }
  }
`;
