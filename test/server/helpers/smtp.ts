/**
 * A real SMTP server on loopback (the smtp-server package) that keeps every message it receives,
 * parsed with mailparser, so tests read the emails the service sent as a mailbox would.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface Mailbox {
  url: string;
  messages: ParsedMail[];
  /** The messages to one address, waiting until `count` of them have arrived. */
  to(address: string, count?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
  /** Refuses the next `n` messages with a temporary error (451), as a busy server does. */
  refuse(n: number): void;
  /** Takes the next messages' DATA and never answers it (nothing is kept): a send hanging mid-way. */
  hang(on: boolean): void;
  /** How many messages were refused or hung so far. */
  turnedAway(): number;
}

const recipients = (m: ParsedMail) => (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).flatMap((t) => t.value.map((v) => v.address));

export async function startMailbox(): Promise<Mailbox> {
  const messages: ParsedMail[] = [];
  const waiters = new Set<() => void>();
  let refusals = 0;
  let hanging = false;
  let turnedAway = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    closeTimeout: 500,
    logger: false,
    onData(stream, _session, callback) {
      if (hanging || refusals > 0) {
        turnedAway++;
        stream.resume();
        if (hanging) return;
        refusals--;
        stream.on('end', () => callback(Object.assign(new Error('Try again later'), { responseCode: 451 })));
        return;
      }
      simpleParser(stream).then(
        (mail) => {
          messages.push(mail);
          for (const wake of waiters) wake();
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  // A client killed mid-send (the crash tests do it) resets its connection; the server reports that as an
  // 'error' event, which unheard would end the test process.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const mine = (address: string) => messages.filter((m) => recipients(m).includes(address));
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async to(address, count = 1) {
      // Generous: a crash test waits out a killed sender's lease first, and a loaded machine stretches it.
      const deadline = Date.now() + 30_000;
      while (mine(address).length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} message(s) to ${address}, got ${mine(address).length}`);
        await new Promise<void>((resolve) => {
          const wake = () => (waiters.delete(wake), resolve());
          waiters.add(wake);
          setTimeout(wake, 200);
        });
      }
      return mine(address);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    refuse: (n) => void (refusals = n),
    hang: (on) => void (hanging = on),
    turnedAway: () => turnedAway,
  };
}

/** The link in an email the service sent, and its parameters. */
export function linkIn(mail: ParsedMail): { url: URL; campaignId: string; token: string } {
  const m = /https?:\/\/\S+refkit_verify=\S+/.exec(mail.text ?? '');
  if (!m) throw new Error(`no link in: ${mail.text}`);
  const url = new URL(m[0]);
  return { url, campaignId: url.searchParams.get('id') ?? '', token: url.searchParams.get('refkit_verify') ?? '' };
}
