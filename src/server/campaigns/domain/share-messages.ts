/** A campaign's per-channel share messages (ShareMessages), kept as one JSON column. */
import { SHARE_CHANNELS, type ShareMessages } from '../../../api/schemas.js';
import type { CampaignRow } from '../../store/store.js';

export function readShareMessages(c: Pick<CampaignRow, 'share_messages'>): ShareMessages {
  if (!c.share_messages) return {};
  return JSON.parse(c.share_messages) as ShareMessages;
}

/** The channels a change gives replace theirs; an empty text clears one. null when none is left. */
export function mergeShareMessages(current: ShareMessages, patch: ShareMessages): string | null {
  const merged: Record<string, string> = { ...current };
  for (const channel of SHARE_CHANNELS) {
    const text = patch[channel];
    if (text === undefined) continue;
    if (text.trim() === '') delete merged[channel];
    else merged[channel] = text;
  }
  return Object.keys(merged).length > 0 ? JSON.stringify(merged) : null;
}
