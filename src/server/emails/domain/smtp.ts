/**
 * The Mailer over SMTP (nodemailer), configured by one URL: `smtp://user:pass@host:587` (STARTTLS when
 * the server offers it) or `smtps://...:465` (TLS from the start). MAIL_FROM names the sender.
 */
import nodemailer from 'nodemailer';
import type { Mailer } from '../../kernel/context.js';

/**
 * How long a send may wait on the SMTP server: well under the lifecycle sender's lease (two minutes), so a
 * server that stops answering fails the attempt (retried later) before another process could claim the
 * same email. Nodemailer's own socket timeout is ten minutes. A URL's own settings take precedence.
 */
const TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

export function smtpMailer(url: string, from: string): Mailer & { close(): void } {
  const transport = nodemailer.createTransport({ url, ...TIMEOUTS });
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
    close: () => transport.close(),
  };
}
