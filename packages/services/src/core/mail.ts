import net from 'node:net';
import nodemailer from 'nodemailer';
import { outboundOf, type TOutbound } from './outbound';

export interface TMail {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail; null when SMTP is not configured (links are then shown in the UI instead). */
export interface TMailer {
  send(mail: TMail): Promise<void>;
}

/**
 * SMTP through nodemailer, e.g. `smtp://user:pass@mail.example.com:587` or `smtps://…:465`. The socket is
 * opened here, to the SMTP host's address as the outbound rules checked it (nodemailer does the TLS on it
 * with the host name for SNI).
 */
export function createMailer(opts: {
  smtpUrl?: string;
  from?: string;
  outbound?: TOutbound;
}): TMailer | null {
  if (!opts.smtpUrl) return null;
  const outbound = outboundOf(opts);
  const transport = nodemailer.createTransport({
    url: opts.smtpUrl,
    getSocket(
      o: { host?: string; port?: number; secure?: boolean },
      cb: (err: Error | null, s?: { connection: net.Socket }) => void,
    ) {
      outbound.resolve(o.host ?? 'localhost').then(
        (ip) => {
          const sock = net.connect({ host: ip, port: o.port ?? (o.secure ? 465 : 587) });
          sock.once('connect', () => cb(null, { connection: sock }));
          sock.once('error', (err) => cb(err));
        },
        (err: Error) => cb(err),
      );
    },
  } as Parameters<typeof nodemailer.createTransport>[0]);
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
