import nodemailer from 'nodemailer';

export interface TMail {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail; null when SMTP is not configured (links are then shown in the UI instead). */
export interface TMailer {
  send(mail: TMail): Promise<void>;
}

/** SMTP through nodemailer, e.g. `smtp://user:pass@mail.example.com:587` or `smtps://…:465`. */
export function createMailer(opts: { smtpUrl?: string; from?: string }): TMailer | null {
  if (!opts.smtpUrl) return null;
  const transport = nodemailer.createTransport(opts.smtpUrl);
  const from = opts.from ?? 'Clusterscope <no-reply@localhost>';
  return {
    async send(mail) {
      await transport.sendMail({ from, ...mail });
    },
  };
}

export function invitationMail(input: { to: string; orgName: string; role: string; link: string }): TMail {
  return {
    to: input.to,
    subject: `You are invited to ${input.orgName} on Clusterscope`,
    text: `You were invited to join ${input.orgName} as ${input.role}.\n\nAccept or decline: ${input.link}\n`,
  };
}

export function verificationMail(input: { to: string; link: string }): TMail {
  return {
    to: input.to,
    subject: 'Verify your email for Clusterscope',
    text: `Confirm this address for your Clusterscope account:\n\n${input.link}\n`,
  };
}
