/**
 * The console lines that tell a developer how to fix a setup mistake (English: they are for developers,
 * not visitors). Loaded only when such a mistake happens.
 */
const TAG = '<referral-widget>';

/** The console line that tells a developer how to fix a setup mistake; undefined for other failures. */
export function setupAdvice(code: string, campaignId: string, origin: string): string | undefined {
  switch (code) {
    case 'missing_campaign_id':
      return `${TAG}: the campaign-id attribute is missing. Set it to your campaign's id: <referral-widget campaign-id="...">.`;
    case 'campaign_not_found':
      return `${TAG}: no campaign has the id "${campaignId}" (the campaign-id attribute). Check it, e.g. with the id printed by "npx refkit campaign create".`;
    case 'forbidden_origin':
      return (
        `${TAG}: this page's origin ${origin} is not in the allowedOrigins of campaign "${campaignId}". ` +
        `Add it (the origins allowed now are kept): npx refkit campaign update --id ${campaignId} --add-allowed-origin ${origin}`
      );
  }
  return undefined;
}
