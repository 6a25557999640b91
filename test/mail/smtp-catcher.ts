import { SMTPServer } from "smtp-server";
import { makeEfiCertificates } from "../helpers/fake-efi-certs.js";

// A local SMTP server the mail tests start (the smtp-server package): STARTTLS with a
// certificate of a throwaway CA (the client is given the CA, as SMTP_CA_FILE would), AUTH
// PLAIN/LOGIN against one user, every accepted message kept raw. `failNext` answers the next
// n messages with a temporary 451, as a server in trouble does.

export interface CaughtMail { from: string; to: string[]; raw: string; headers: Map<string, string>; secure: boolean }

export interface SmtpCatcher {
  url: string;
  ca: string;
  /** The CA in a PEM file (SMTP_CA_FILE for a feira process). */
  caFile: string;
  mails: CaughtMail[];
  failNext(n: number): void;
  close(): Promise<void>;
}

/** The headers of a raw message, unfolded, names lower-cased (the first of each name). */
export function headersOf(raw: string): Map<string, string> {
  const head = raw.split(/\r\n\r\n/)[0]!.replace(/\r\n[ \t]+/g, " ");
  const map = new Map<string, string>();
  for (const line of head.split("\r\n")) {
    const i = line.indexOf(":");
    if (i > 0 && !map.has(line.slice(0, i).toLowerCase())) map.set(line.slice(0, i).toLowerCase(), line.slice(i + 1).trim());
  }
  return map;
}

export async function startSmtpCatcher(): Promise<SmtpCatcher> {
  const certs = makeEfiCertificates();
  const mails: CaughtMail[] = [];
  let failing = 0;
  const server = new SMTPServer({
    key: certs.server.key, cert: certs.server.cert, secure: false,
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === "feira" && auth.password === "s3cret") return cb(null, { user: "feira" });
      return cb(new Error("Invalid username or password"));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (failing > 0) {
          failing--;
          return cb(Object.assign(new Error("Try again later"), { responseCode: 451 }));
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((r) => r.address),
          raw, headers: headersOf(raw), secure: session.secure,
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://feira:s3cret@localhost:${port}`,
    ca: certs.ca,
    caFile: certs.caFile,
    mails,
    failNext: (n) => { failing = n; },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      certs.remove();
    },
  };
}

/** The text/html part of a raw message, quoted-printable or base64 decoded. */
export function htmlPartOf(raw: string): string {
  const at = raw.search(/Content-Type: text\/html/i);
  if (at < 0) return "";
  const rest = raw.slice(at);
  const headEnd = rest.indexOf("\r\n\r\n");
  const head = rest.slice(0, headEnd);
  const body = rest.slice(headEnd + 4).split(/\r\n--/)[0]!;
  if (/base64/i.test(head)) return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (/quoted-printable/i.test(head)) {
    return Buffer.from(body.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), "latin1").toString("utf8");
  }
  return body;
}
