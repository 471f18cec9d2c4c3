/**
 * The default Mailer: sends nothing, and writes one line per message (recipient and subject only, never the
 * body, which holds what visitors typed) so an operator can see that feedback would have been mailed.
 */
import type { MailMessage, Mailer } from '../../ports/mailer';

export function createLoggingMailer(log: (line: string) => void): Mailer {
  return {
    async send(message: MailMessage) {
      log(
        `mail not sent (logging mailer): to ${JSON.stringify(message.to)}, subject ${JSON.stringify(message.subject)}`,
      );
    },
  };
}

/** A Mailer that keeps every message, for tests and for tools that inspect what would be sent. */
export function createRecordingMailer(): Mailer & { sent: MailMessage[] } {
  const sent: MailMessage[] = [];
  return {
    sent,
    async send(message: MailMessage) {
      sent.push(message);
    },
  };
}
