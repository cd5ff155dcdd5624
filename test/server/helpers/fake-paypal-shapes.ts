/**
 * What the PayPal stand-in (./fake-paypal.ts) checks and writes, from PayPal's reference: its currencies
 * and their decimals, the create request's fields, its error bodies, the item events of each
 * transaction_status. Kept apart from the client's own tables (src/server/payouts/domain/paypal-wire.ts)
 * so that a mistake there is caught here rather than shared.
 */
import { randomBytes } from 'node:crypto';

export interface FakePayPalItem {
  payoutItemId: string;
  transactionId: string | undefined;
  senderItemId: string;
  receiver: string;
  value: string;
  currency: string;
  note: string | undefined;
  status: string;
  error: { name: string; message: string } | undefined;
  timeProcessed: string | undefined;
}

export interface FakePayPalBatch {
  clientId: string;
  batchId: string;
  senderBatchId: string;
  emailSubject: string;
  emailMessage: string | undefined;
  status: string;
  timeCreated: string;
  timeCompleted: string | undefined;
  items: FakePayPalItem[];
}

export type Json = Record<string, unknown>;
export type Result = { status: number; body: unknown };

export const ZERO_DECIMAL = ['HUF', 'JPY', 'TWD'];
const CURRENCIES = new Set([...ZERO_DECIMAL, 'AUD', 'BRL', 'CAD', 'CNY', 'CZK', 'DKK', 'EUR', 'HKD', 'ILS', 'MYR', 'MXN', 'NZD', 'NOK', 'PHP', 'PLN', 'GBP', 'SGD', 'SEK', 'CHF', 'THB', 'USD']);
const HEADER_FIELDS = ['sender_batch_id', 'recipient_type', 'email_subject', 'email_message', 'note'];
const ITEM_FIELDS = ['recipient_type', 'amount', 'note', 'receiver', 'sender_item_id', 'recipient_wallet', 'alternate_notification_method', 'notification_language', 'application_context', 'purpose'];
export const VERIFY_FIELDS = ['auth_algo', 'cert_url', 'transmission_id', 'transmission_sig', 'transmission_time', 'webhook_id', 'webhook_event'];
export const DEFAULT_ERRORS: Record<string, { name: string; message: string }> = {
  UNCLAIMED: { name: 'RECEIVER_UNREGISTERED', message: 'Receiver is unregistered' },
  RETURNED: { name: 'RECEIVER_UNREGISTERED', message: 'Receiver is unregistered: the unclaimed payout was returned' },
  FAILED: { name: 'RECEIVER_ACCOUNT_LOCKED', message: 'Receiver account is locked or inactive' },
};
/** The item event of each transaction_status, and its summary. */
export const ITEM_EVENTS: Record<string, [string, string]> = {
  SUCCESS: ['SUCCEEDED', 'A payout item has succeeded'],
  FAILED: ['FAILED', 'A payout item has failed'],
  RETURNED: ['RETURNED', 'A payout item has been returned'],
  UNCLAIMED: ['UNCLAIMED', 'A payout item is unclaimed'],
  BLOCKED: ['BLOCKED', 'A payout item has been blocked'],
  REFUNDED: ['REFUNDED', 'A payout item has been refunded'],
  ONHOLD: ['HELD', 'A payout item is held'],
};

export const id = (n = 13) => Array.from(randomBytes(n), (b) => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[b % 32]).join('');
export const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
export const obj = (v: unknown): Json | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);
export const str = (v: unknown, max: number, min = 1) => typeof v === 'string' && v.length >= min && v.length <= max;
export const paypalError = (status: number, name: string, message: string, extra: Json = {}): Result => ({
  status,
  body: { name, message, debug_id: randomBytes(7).toString('hex').slice(0, 13), information_link: 'https://developer.paypal.com/docs/api/payments.payouts-batch/#errors', ...extra },
});
export const oauthError = (status: number, error: string, description: string): Result => ({ status, body: { error, error_description: description } });

/** The create request's problems, as PayPal's VALIDATION_ERROR details. */
export function validate(body: Json): { field: string; location: 'body'; issue: string }[] {
  const details: { field: string; location: 'body'; issue: string }[] = [];
  const add = (field: string, issue: string) => details.push({ field, location: 'body', issue });
  const unknown = (o: Json, known: string[], at: string) => Object.keys(o).filter((k) => !known.includes(k)).forEach((k) => add(`${at}${k}`, 'Unknown field'));
  unknown(body, ['sender_batch_header', 'items'], '');
  const header = obj(body.sender_batch_header);
  if (!header) add('sender_batch_header', 'Required field is missing');
  else {
    unknown(header, HEADER_FIELDS, 'sender_batch_header.');
    if (!str(header.sender_batch_id, 256)) add('sender_batch_header.sender_batch_id', 'A string of 1 to 256 characters is required');
    if (!str(header.email_subject, 255)) add('sender_batch_header.email_subject', 'A string of 1 to 255 characters is required');
    if (header.email_message !== undefined && !str(header.email_message, 1000, 0)) add('sender_batch_header.email_message', 'At most 1000 characters');
  }
  const items = Array.isArray(body.items) ? body.items : undefined;
  if (!items || items.length < 1 || items.length > 15_000) return (add('items', 'Between 1 and 15000 items are required'), details);
  items.forEach((raw, n) => {
    const at = `items[${n}]`;
    const item = obj(raw);
    if (!item) return add(at, 'An object is required');
    unknown(item, ITEM_FIELDS, `${at}.`);
    if ((item.recipient_type ?? header?.recipient_type) !== 'EMAIL') add(`${at}.recipient_type`, 'recipient_type EMAIL is required (the only kind this fake pays)');
    if (!str(item.receiver, 127) || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(item.receiver as string)) add(`${at}.receiver`, 'Receiver is invalid or does not match with type');
    if (!str(item.sender_item_id, 63)) add(`${at}.sender_item_id`, 'A string of 1 to 63 characters is required');
    if (item.note !== undefined && !str(item.note, 4000, 0)) add(`${at}.note`, 'At most 4000 characters');
    const amount = obj(item.amount);
    const currency = amount?.currency;
    if (typeof currency !== 'string' || !CURRENCIES.has(currency)) return add(`${at}.amount.currency`, 'Currency code is invalid or is not currently supported');
    const value = amount!.value;
    const form = ZERO_DECIMAL.includes(currency) ? /^\d+$/ : /^\d+\.\d{2}$/;
    if (typeof value !== 'string') add(`${at}.amount.value`, 'The amount value must be a string');
    else if (!form.test(value)) add(`${at}.amount.value`, ZERO_DECIMAL.includes(currency) ? 'Currency does not support decimals' : 'Exactly two decimal places are required');
    else if (Number(value) <= 0) add(`${at}.amount.value`, 'The amount must be greater than zero');
  });
  return details;
}

/** A batch_header as PayPal shows it. */
export function batchHeader(batch: FakePayPalBatch): Json {
  const currency = batch.items[0]!.currency;
  const decimals = ZERO_DECIMAL.includes(currency) ? 0 : 2;
  const total = batch.items.every((i) => i.currency === currency) ? batch.items.reduce((sum, i) => sum + Math.round(Number(i.value) * 10 ** decimals), 0) : undefined;
  const sender_batch_header = { sender_batch_id: batch.senderBatchId, email_subject: batch.emailSubject, ...(batch.emailMessage !== undefined && { email_message: batch.emailMessage }) };
  return {
    payout_batch_id: batch.batchId,
    batch_status: batch.status,
    time_created: batch.timeCreated,
    ...(batch.timeCompleted && { time_completed: batch.timeCompleted }),
    sender_batch_header,
    ...(total !== undefined && { amount: { currency, value: (total / 10 ** decimals).toFixed(decimals) }, fees: { currency, value: (0).toFixed(decimals) } }),
  };
}

/** An item of a batch as GET /v1/payments/payouts/{id} shows it. */
export function itemJson(batch: FakePayPalBatch, item: FakePayPalItem, link: (path: string, rel: string) => Json): Json {
  return {
    payout_item_id: item.payoutItemId,
    ...(item.transactionId && { transaction_id: item.transactionId }),
    transaction_status: item.status,
    payout_item_fee: { currency: item.currency, value: ZERO_DECIMAL.includes(item.currency) ? '0' : '0.00' },
    payout_batch_id: batch.batchId,
    payout_item: { recipient_type: 'EMAIL', amount: { currency: item.currency, value: item.value }, ...(item.note !== undefined && { note: item.note }), receiver: item.receiver, sender_item_id: item.senderItemId, recipient_wallet: 'PAYPAL' },
    ...(item.timeProcessed && { time_processed: item.timeProcessed }),
    ...(item.error && { errors: { ...item.error, information_link: 'https://developer.paypal.com/docs/api/payments.payouts-batch/#errors', details: [] } }),
    links: [link(`/v1/payments/payouts-item/${item.payoutItemId}`, 'item')],
  };
}
