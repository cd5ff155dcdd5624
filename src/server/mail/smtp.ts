/**
 * The Mailer over SMTP (nodemailer), configured by one URL: `smtp://user:pass@host:587` (STARTTLS when
 * the server offers it) or `smtps://...:465` (TLS from the start). MAIL_FROM names the sender.
 */
import nodemailer from 'nodemailer';
import type { Mailer } from '../domain/context.js';

export function smtpMailer(url: string, from: string): Mailer & { close(): void } {
  const transport = nodemailer.createTransport(url);
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
    close: () => transport.close(),
  };
}
