'use strict';
// The JWS library under test: an adapter chosen by the environment variable JWTBENCH_LIBRARY
// (workflow/scripts/README.md, "A further library of a language"). Unset, or `jsonwebtoken`:
// the node driver's own library (jwt_ops.js); any other name: the adapter in
// `<name>/adapter.js` beside this file, started through `<name>/run`. The harness (CLI,
// timing loop, stopping rule, raw-sample writer, verify-batch) is the same for all.
//
// An adapter is an object with:
//   name             the library (the rows' `implementation`, `versions`); its npm package
//   suites           the JWT suites it runs (jwt, tokensize, transfer, percall; another is an
//                    input error); hash, primitive and keygen time node:crypto, and harness
//                    the timing loop, for every library
//   async            whether its signers and verifiers return promises (each call is awaited,
//                    and the timing loops time the awaited calls); decode is always synchronous
//   cryptoBackend(openssl)  `versions`' crypto_backend, given node's OpenSSL description
//   nativeKey(role, alg, keyObject)  the library's own key object for a node:crypto KeyObject
//                    (role 'private' or 'public'), made once before anything is timed; may
//                    return a promise; throws what isUnsupportedAlgorithmError recognises when
//                    the library lacks alg
//   signer(alg, key, claims)   a function claims -> compact JWS signing exactly `claims` (what
//                    an application builds once; built per input, since a claim like `iat`
//                    decides its options)
//   verifier(alg, key)  a function compact -> claims: the verify policy (README "The verify
//                    policy"), every item set explicitly; throws on an invalid token
//   decoder          a function compact -> claims without verifying, or null (no such API)
//   verifySignatureOnly(compact, alg, key)  the payload bytes (a Buffer) of a JWS whose header
//                    names alg and whose signature verifies, through the library's JWS layer;
//                    throws InvalidSignature otherwise (may return a promise)
//   lacksAlgorithm(alg)  whether the library lacks alg, asked when no private key is at hand
//   isUnsupportedAlgorithmError(err)  the library's own "unknown algorithm" error
//   isVerdict(err)   whether err is one of the library's documented verdicts on a token

const fs = require('node:fs');
const path = require('node:path');

const DEFAULT_LIBRARY = 'jsonwebtoken';
const LIBRARY = process.env.JWTBENCH_LIBRARY || DEFAULT_LIBRARY;
// The driver's name: `node` for its own library, `node/<library>` for a further one (its
// messages say which); rows and specs name the language, `node`, and rows the library as
// their `implementation`.
const DRIVER = LIBRARY === DEFAULT_LIBRARY ? 'node' : `node/${LIBRARY}`;

class UnknownLibrary extends Error {}

/** The policy's "the payload must be a JSON object", whatever the library returns. */
class InvalidPayload extends Error {}
InvalidPayload.prototype.name = 'InvalidPayload';

/** A JWS that `verify --signature-only` does not accept. */
class InvalidSignature extends Error {}

/** Claims that are a JSON object, or InvalidPayload. */
function objectClaims(claims) {
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) {
    throw new InvalidPayload('the payload is not a JSON object');
  }
  return claims;
}

/** `text` on one line of at most 300 characters (a batch line's `reason`). */
function oneLine(text) {
  return text.replace(/[\r\n]+/g, ' ').slice(0, 300);
}

/** "Type: message" of anything thrown, on one line of at most 300 characters. */
function describeError(e) {
  const type = e instanceof Error ? (e.constructor?.name || e.name || 'Error') : typeof e;
  let message;
  try {
    message = e instanceof Error ? String(e.message) : String(e);
  } catch (_) {
    message = '(no message)';
  }
  return oneLine(`${type}: ${message}`);
}

/** The payload segment of a compact JWS, decoded (the bytes exactly as signed). */
function payloadBytes(compact) {
  return Buffer.from(compact.split('.')[1], 'base64url');
}

let adapter;

/** The adapter of JWTBENCH_LIBRARY (loaded once); UnknownLibrary when there is none. */
function library() {
  if (adapter !== undefined) return adapter;
  if (LIBRARY === DEFAULT_LIBRARY) {
    adapter = require('./jwt_ops').adapter;
  } else {
    const file = path.join(__dirname, LIBRARY, 'adapter.js');
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(LIBRARY) || !fs.existsSync(file)) {
      throw new UnknownLibrary(`JWTBENCH_LIBRARY=${LIBRARY}: the node driver has no such library (no ${file})`);
    }
    adapter = require(file);
  }
  if (adapter.name !== LIBRARY) throw new Error(`the adapter of ${LIBRARY} calls itself ${adapter.name}`);
  return adapter;
}

/**
 * What `verify` answers for what a verifier threw: the library's documented verdicts and
 * the policy's InvalidPayload are "invalid" (exit 1); anything else is an error (exit 4).
 */
function verdictOf(e) {
  const invalid = e instanceof InvalidPayload || library().isVerdict(e);
  return { exit: invalid ? 1 : 4, outcome: invalid ? 'reject' : 'error', reason: describeError(e) };
}

module.exports = {
  DEFAULT_LIBRARY, LIBRARY, DRIVER, UnknownLibrary, InvalidPayload, InvalidSignature,
  objectClaims, oneLine, describeError, payloadBytes, library, verdictOf,
};
