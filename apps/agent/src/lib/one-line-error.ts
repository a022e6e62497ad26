/**
 * The last error of an input as the heartbeat carries it: one line, no secrets, bounded. The server shows it
 * to everyone who can read the cluster, so credentials in URLs, bearer tokens, secret-looking query
 * parameters and the configured secret values (e.g. request header values) are replaced by `***`.
 * Every pattern is a single pass with no nested quantifiers (linear in the message length).
 */
import { INPUT_ERROR_MAX } from '@clusterscope/schema';

const URL_USERINFO = /\b([a-z][a-z0-9+.-]{1,15}:\/\/)[^\s/?#@]+@/gi;
const BEARER = /\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{6,}/gi;
const SECRET_PARAM =
  /([?&;\s](?:access_token|api[_-]?key|auth|password|passwd|pwd|secret|sig|signature|token)=)[^\s&#;]+/gi;
const CS_TOKEN = /\bcs_[A-Za-z0-9_-]{6,}/g;
const WHITESPACE_RUN = /\s+/g;

export function toOneLineError(message: string, secrets: readonly string[] = []): string {
  let s = message.slice(0, 4 * INPUT_ERROR_MAX);
  for (const v of secrets) if (v.length >= 4) s = s.split(v).join('***');
  s = s
    .replace(URL_USERINFO, '$1***@')
    .replace(BEARER, '$1 ***')
    .replace(SECRET_PARAM, '$1***')
    .replace(CS_TOKEN, 'cs_***')
    .replace(WHITESPACE_RUN, ' ')
    .trim();
  return s.length > INPUT_ERROR_MAX ? `${s.slice(0, INPUT_ERROR_MAX - 1)}…` : s;
}
