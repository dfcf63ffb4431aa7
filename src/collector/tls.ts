import { X509Certificate, createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import { Server as TlsServer } from "node:tls";
import { diag } from "@opentelemetry/api";
import { resolve as resolvePath } from "node:path";
import { ConfigError } from "../config/errors.ts";
import { COLLECTOR_ENV } from "../config/env.ts";
import { integerIn, parseNonEmpty } from "../config/parse.ts";
import type { FieldReader } from "../config/resolve.ts";
import { fileRelativePath } from "../config/resolve.ts";

/** The collector's TLS settings, resolved (CollectorOptions.tlsCertFile, tlsKeyFile, tlsReloadMs). */
export interface ResolvedTls {
  /** The PEM certificate (chain) file, absolute. */
  readonly certFile: string;
  /** The PEM private key file, absolute. */
  readonly keyFile: string;
  /** The fields the two paths came from ("tlsCertFile", GROUNDWATCH_TLS_CERT_FILE, "config file collector.tlsCertFile"), as a ConfigError about them names them. */
  readonly certField: string;
  readonly keyField: string;
  /** How often the files are checked for a new certificate, ms; 0: never. */
  readonly reloadMs: number;
}

/** What is said of a certificate (the banner, a reload): never the key. */
export interface CertificateInfo {
  /** The subject, e.g. "CN=groundwatch". */
  readonly subject: string;
  /** Its subject alternative names as OpenSSL writes them ("DNS:groundwatch, IP Address:127.0.0.1"), or "" when none. */
  readonly names: string;
  readonly validFrom: Date;
  readonly validTo: Date;
  /** SHA-256 fingerprint, colon-separated hex. */
  readonly fingerprint: string;
}

/** A certificate and the key that belongs to it, read from their files. */
export interface TlsCredentials {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly certificate: CertificateInfo;
}

/** tlsReloadMs when not set: cert-manager renews weeks before expiry, and the kubelet updates a mounted Secret within a minute or two. */
export const DEFAULT_TLS_RELOAD_MS = 60_000;

type TlsKey = "tlsCertFile" | "tlsKeyFile" | "tlsReloadMs";

/**
 * The TLS settings, option > env > config file > default; undefined when neither file is set. A
 * certificate without a key (or the reverse) is a ConfigError naming the one set. A path from the
 * config file is relative to the file's folder; one from an option or the environment to the
 * working directory.
 */
export function resolveTls(read: FieldReader<TlsKey>, configFile: string | undefined): ResolvedTls | undefined {
  const path = (key: TlsKey): { file: string; field: string } | undefined => {
    const p = read.field(key, parseNonEmpty);
    const file = fileRelativePath(p, configFile);
    return file === undefined ? undefined : { file: resolvePath(file), field: p.field };
  };
  const cert = path("tlsCertFile");
  const key = path("tlsKeyFile");
  const reloadMs = read("tlsReloadMs", integerIn(0, 86_400_000), DEFAULT_TLS_RELOAD_MS);
  if (!cert && !key) return undefined;
  if (!cert || !key) {
    const given = (cert ?? key)!;
    throw new ConfigError(given.field, given.file, `TLS needs both a certificate and its key: set ${cert ? `--tls-key (${COLLECTOR_ENV.tlsKeyFile}, config file collector.tlsKeyFile)` : `--tls-cert (${COLLECTOR_ENV.tlsCertFile}, config file collector.tlsCertFile)`} too, or neither`);
  }
  return { certFile: cert.file, keyFile: key.file, certField: cert.field, keyField: key.field, reloadMs };
}

/** A file's bytes; a file that cannot be read is a ConfigError naming the field and why. */
function readPem(field: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new ConfigError(field, file, `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

const PEM_CERTIFICATE = "-----BEGIN CERTIFICATE-----";
const PEM_PRIVATE_KEY = /-----BEGIN (?:RSA |EC )?PRIVATE KEY-----/;

/** The certificate's description, from the first certificate of a PEM chain. */
function describe(x509: X509Certificate): CertificateInfo {
  return { subject: x509.subject.replace(/\n/g, ", "), names: x509.subjectAltName ?? "", validFrom: new Date(x509.validFrom), validTo: new Date(x509.validTo), fingerprint: x509.fingerprint256 };
}

/**
 * Checks a certificate and key: PEM, parseable, and the key the certificate's. Each failure is a
 * ConfigError naming the field (the certificate's or the key's) and saying what is wrong.
 */
export function checkCredentials(tls: ResolvedTls, cert: Buffer, key: Buffer): TlsCredentials {
  const certText = cert.toString("latin1");
  if (!certText.includes(PEM_CERTIFICATE)) throw new ConfigError(tls.certField, tls.certFile, `expected a PEM certificate (a file with ${PEM_CERTIFICATE})`);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (error) {
    throw new ConfigError(tls.certField, tls.certFile, `not a valid PEM certificate: ${(error as Error).message}`);
  }
  const keyText = key.toString("latin1");
  if (keyText.includes("-----BEGIN ENCRYPTED PRIVATE KEY-----") || /Proc-Type: 4,ENCRYPTED/.test(keyText)) {
    throw new ConfigError(tls.keyField, tls.keyFile, "the private key is encrypted, and groundwatch takes no passphrase: give it the key unencrypted (openssl pkey -in KEY -out KEY.plain), readable by this process only");
  }
  if (!PEM_PRIVATE_KEY.test(keyText)) throw new ConfigError(tls.keyField, tls.keyFile, "expected a PEM private key (a file with -----BEGIN PRIVATE KEY-----)");
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch (error) {
    throw new ConfigError(tls.keyField, tls.keyFile, `not a valid PEM private key: ${(error as Error).message}`);
  }
  if (!x509.checkPrivateKey(privateKey)) throw new ConfigError(tls.keyField, tls.keyFile, `this key does not belong to the certificate in ${tls.certFile} (the first certificate of the file must be the server's own)`);
  return { cert, key, certificate: describe(x509) };
}

/** Reads and checks the certificate and key files (checkCredentials); a ConfigError says which file and why. */
export function loadTlsCredentials(tls: ResolvedTls): TlsCredentials {
  return checkCredentials(tls, readPem(tls.certField, tls.certFile), readPem(tls.keyField, tls.keyFile));
}

/** What one check of the certificate files found. */
export type TlsReload = { readonly status: "unchanged" } | { readonly status: "reloaded"; readonly certificate: CertificateInfo } | { readonly status: "failed"; readonly error: string };

/** Serves a rotated certificate without a restart (see watchCertificate). */
export interface CertificateWatch {
  /** Reads the files again; when they changed and hold a valid pair, serves the new certificate. */
  check(): TlsReload;
  /** The certificate being served. */
  current(): CertificateInfo;
  /** Stops the periodic check. */
  stop(): void;
}

/** How watchCertificate checks and applies. */
export interface CertificateWatchOptions {
  readonly tls: ResolvedTls;
  /** The pair served now (read at start). */
  readonly initial: TlsCredentials;
  /** Serves a new pair (the server's setSecureContext). */
  readonly apply: (credentials: TlsCredentials) => void;
  /** Told once per distinct pair of files that cannot be served (a certificate without its new key yet, a bad file); the old pair stays. */
  readonly onFailed: (message: string) => void;
}

/**
 * Checks the certificate and key files every tls.reloadMs (never when 0) and on `check()`, and serves
 * a new pair once both files hold one that belongs together. Until then the pair served before stays:
 * a file being rewritten, or a certificate renewed before its key, never takes the listener down.
 */
export function watchCertificate(options: CertificateWatchOptions): CertificateWatch {
  const { tls } = options;
  let served = options.initial;
  let failedOn: string | undefined;
  const check = (): TlsReload => {
    let cert: Buffer;
    let key: Buffer;
    try {
      cert = readPem(tls.certField, tls.certFile);
      key = readPem(tls.keyField, tls.keyFile);
      if (cert.equals(served.cert) && key.equals(served.key)) {
        failedOn = undefined;
        return { status: "unchanged" };
      }
      const next = checkCredentials(tls, cert, key);
      options.apply(next);
      served = next;
      failedOn = undefined;
      return { status: "reloaded", certificate: next.certificate };
    } catch (error) {
      const message = `${(error as Error).message}; still serving the certificate ${served.certificate.subject} (valid until ${served.certificate.validTo.toISOString()})`;
      if (message !== failedOn) options.onFailed(message);
      failedOn = message;
      return { status: "failed", error: message };
    }
  };
  const timer = tls.reloadMs > 0 ? setInterval(check, tls.reloadMs).unref() : undefined;
  return { check, current: () => served.certificate, stop: () => clearInterval(timer) };
}

/** watchCertificate for the collector's listening server: a new pair goes to its setSecureContext, a failure to the diag log. Undefined without TLS. */
export function watchServedCertificate(server: Server, tls: ResolvedTls | undefined, credentials: TlsCredentials | undefined): CertificateWatch | undefined {
  if (!tls || !credentials || !(server instanceof TlsServer)) return undefined;
  return watchCertificate({
    tls,
    initial: credentials,
    apply: (c) => server.setSecureContext({ cert: c.cert, key: c.key }),
    onFailed: (message) => diag.warn(`groundwatch collector: the TLS certificate was not reloaded: ${message}`),
  });
}
