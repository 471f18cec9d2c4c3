/**
 * Outgoing mail. Contact-form feedback hands its composed messages to a Mailer; whether anything leaves the
 * process is the adapter's business. A rejected promise means the message was not sent (`mail_failed`).
 */
export interface MailMessage {
  /** Recipients as written in the form's mail settings, mail-tags replaced (`a@example.com, b@example.com`). */
  to: string;
  /** The sender mailbox (`Name <address>`). */
  from: string;
  subject: string;
  body: string;
  /** Extra header lines (`Reply-To: …`), one per line. */
  additionalHeaders: string;
  /** Whether `body` is HTML. */
  html: boolean;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
