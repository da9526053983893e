// How the Valkey URL exposes the fleet's shared state, read from the URL alone (pure): a Valkey
// that asks no password lets anything that reaches it plant markers, locks and slots for every
// cluster of the fleet; plain text to another host shows that password, and every key, to
// whoever sits on the path. docs/valkey.md gives a per-cluster ACL user and TLS.
import { isIP } from 'node:net';
import { ok, warn, type Finding } from './findings.js';
import { redactUrl } from './valkey.js';

function loopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1';
}

/** The `valkey-exposure` findings of one URL: a WARN for each exposure, else one ok. */
export function valkeyExposureFindings(url: string): Finding[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const shown = redactUrl(url);
  const findings: Finding[] = [];
  if (u.password === '') {
    findings.push(
      warn(
        'valkey-exposure',
        `${shown} is used with no password: whatever reaches it can plant markers, locks and slots for every cluster that shares it. Give each cluster an ACL user of its own (docs/valkey.md)`,
      ),
    );
  }
  if (u.protocol === 'redis:' && !loopback(u.hostname)) {
    findings.push(
      warn(
        'valkey-exposure',
        `${shown} is plain text to ${u.hostname}, not a loopback address: the password and every key cross the network readable. Use rediss:// (valkey.tls, docs/valkey.md)`,
      ),
    );
  }
  if (findings.length === 0) {
    findings.push(ok('valkey-exposure', `${shown} asks a password${u.protocol === 'rediss:' ? ' over TLS' : ', on a loopback address'}`));
  }
  return findings;
}
