/**
 * Every text of the portal's own, in one module: its catalogue (xliff/portal/*.xlf, built into
 * ./locales/ by `npm run localize`) is extracted from this file alone (lit-localize.portal.json), which
 * imports nothing of the widget's, so that it holds none of the widget's texts. The widget's views the
 * page shows (the share view) bring their own texts, from the widget's catalogue (./i18n.ts loads both).
 */
import { msg, str } from '@lit/localize';

export const t = {
  title: () => msg('Your referral rewards'),
  // Signing in
  signInIntro: () => msg('Enter the email you joined with, and we will email you a link to sign in.'),
  email: () => msg('Email'),
  emailMeALink: () => msg('Email me a sign-in link'),
  checkInbox: () => msg('Check your inbox'),
  linkOnItsWay: (email: string) => msg(str`If ${email} has joined this referral program, a sign-in link is on its way. It works once, within 15 minutes.`),
  useAnotherEmail: () => msg('Use another email'),
  linkSpent: () => msg('This sign-in link has expired or was already used. Enter your email for a new one.'),
  signedInAs: (email: string) => msg(str`Signed in as ${email}`),
  signOut: () => msg('Sign out'),
  // Balances and the ledger
  available: () => msg('Available'),
  pending: () => msg('Pending'),
  inPayouts: () => msg('In payouts'),
  rewardHistory: () => msg('Reward history'),
  date: () => msg('Date'),
  what: () => msg('What'),
  amount: () => msg('Amount'),
  state: () => msg('State'),
  availableOn: () => msg('Available on'),
  noRewards: () => msg('No rewards yet. They appear here when your friends join and qualify.'),
  olderNotShown: () => msg('Older entries are not shown.'),
  entryKinds: {
    referral: () => msg('Reward for a friend'),
    referee: () => msg('Welcome reward'),
    commission: () => msg('Commission'),
    milestone: () => msg('Milestone bonus'),
    reversal: () => msg('Taken back'),
    redemption: () => msg('Paid out or used'),
  },
  entryStates: {
    pending: () => msg('Pending'),
    available: () => msg('Available'),
    reversed: () => msg('Reversed'),
    redeemed: () => msg('Redeemed'),
    cancelled: () => msg('Cancelled'),
  },
  // Payouts
  payouts: () => msg('Payouts'),
  paidTo: () => msg('Paid to'),
  status: () => msg('Status'),
  noPayouts: () => msg('No payouts yet.'),
  payoutStatuses: {
    pending_approval: () => msg('Awaiting approval'),
    sending: () => msg('Sending'),
    sent: () => msg('Sent'),
    paid: () => msg('Paid'),
    failed: () => msg('Failed'),
    returned: () => msg('Returned'),
    unclaimed: () => msg('Unclaimed'),
    cancelled: () => msg('Cancelled'),
  },
  bankThroughStripe: () => msg('Bank account (Stripe)'),
  // Where the money goes
  whereMoneyGoes: () => msg('Where your money goes'),
  noCash: () => msg('This program gives its rewards as credit, not as cash payouts.'),
  minimum: (amount: string) => msg(str`A payout is made once your available rewards reach ${amount}.`),
  payoutMethod: () => msg('Payout method'),
  paypalEmail: () => msg('PayPal email'),
  stripeReady: () => msg('Your bank account is connected through Stripe and ready for payouts.'),
  stripeHowTo: () => msg('Stripe asks for your bank details on its own page, then sends you back here.'),
  save: () => msg('Save'),
  connectStripe: () => msg('Connect with Stripe'),
  updateStripe: () => msg('Update bank details with Stripe'),
  savedPaypal: () => msg('Saved. Your payouts go to this PayPal account.'),
  // Tax details
  taxDetails: () => msg('Tax details'),
  taxIntro: () => msg('Needed before payouts pass the yearly amount US tax rules set. Your tax ID is stored encrypted; only its last four characters are ever shown.'),
  form: () => msg('Form'),
  w9: () => msg('W-9 (US person)'),
  w8ben: () => msg('W-8BEN (not a US person)'),
  legalName: () => msg('Legal name'),
  taxId: () => msg('Tax ID'),
  taxIdHint: () => msg('For a W-9, your SSN or EIN; for a W-8BEN, the tax ID of your country.'),
  address: () => msg('Address'),
  country: () => msg('Country'),
  countryHint: () => msg('Two letters, for example US or DE.'),
  replace: () => msg('Replace'),
  saveTaxDetails: () => msg('Save tax details'),
  savedTax: () => msg('Saved. Your tax details are on file.'),
  // Refusals
  badPaypalEmail: () => msg('Enter the email address of your PayPal account.'),
  badTin: () => msg('Enter a valid tax ID: for a W-9, a US SSN (123-45-6789) or EIN (12-3456789).'),
  badCountry: () => msg('The country does not fit the form: a W-9 is for US persons, a W-8BEN for everyone else.'),
  fillIn: () => msg('Fill in this field.'),
  noCashRefusal: () => msg('This program pays no cash.'),
  notNow: () => msg('This cannot be done just now. Please try again later.'),
};
