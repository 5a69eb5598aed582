'use strict';
// Pre-timing correctness checks (workflow/scripts/README.md, "The checks before timing"), run
// once per algorithm and key before any of its cells is timed, through the library's adapter
// (library.js; keys are its own key objects). The forged tokens are built here with
// node:crypto, independently of the library under test.

const crypto = require('node:crypto');
const { isDeepStrictEqual } = require('node:util');
const { library } = require('./library');
const { isHmac } = require('./inputs');

function b64url(bytes) {
  return Buffer.from(bytes).toString('base64url');
}

function b64urlJson(value) {
  return b64url(JSON.stringify(value));
}

/** The token with the lowest bit of its first signature byte flipped, re-encoded. */
function flipSignatureBit(token) {
  const [header, payload, signature] = token.split('.');
  const raw = Buffer.from(signature, 'base64url');
  raw[0] ^= 1;
  return `${header}.${payload}.${b64url(raw)}`;
}

/** Same payload, header {"alg":"none","typ":"JWT"}, empty signature. */
function unsignedToken(token) {
  const payload = token.split('.')[1];
  return `${b64urlJson({ alg: 'none', typ: 'JWT' })}.${payload}.`;
}

/** Same payload, validly HMAC'd under `hsAlg` with `keyBytes`. */
function hmacToken(token, hsAlg, keyBytes) {
  const payload = token.split('.')[1];
  const signingInput = `${b64urlJson({ alg: hsAlg, typ: 'JWT' })}.${payload}`;
  const mac = crypto.createHmac(`sha${hsAlg.slice(2)}`, keyBytes).update(signingInput).digest();
  return `${signingInput}.${b64url(mac)}`;
}

/**
 * A token naming another algorithm: for HS*, the same secret under another HS algorithm
 * (HS384 for HS256, else HS256); otherwise HS256 keyed with the public-key PEM's bytes
 * (key confusion).
 */
function otherAlgorithmToken(token, alg, verificationKeyBytes) {
  if (isHmac(alg)) return hmacToken(token, alg === 'HS256' ? 'HS384' : 'HS256', verificationKeyBytes);
  return hmacToken(token, 'HS256', verificationKeyBytes);
}

async function rejects(verify, token) {
  try {
    await verify(token);
    return false;
  } catch (_) {
    return true;
  }
}

/**
 * Runs every check for one (algorithm, key pair, claims).
 * verificationKeyBytes: the secret file's bytes (HS*) or the public-key PEM file's bytes.
 * Returns {status: 'ok', token} | {status: 'unsupported', reason} | {status: 'failed', reason}.
 */
async function checkAlgorithm({ alg, signingKey, verificationKey, verificationKeyBytes, claims }) {
  const lib = library();
  let token;
  let verify;
  try {
    token = await lib.signer(alg, signingKey, claims)(claims);
    verify = lib.verifier(alg, verificationKey);
  } catch (err) {
    if (lib.isUnsupportedAlgorithmError(err)) {
      return { status: 'unsupported', reason: `${lib.name} rejects algorithm ${alg}: ${err.message}` };
    }
    return { status: 'failed', reason: `sign threw: ${err.message}` };
  }
  if (typeof token !== 'string' || token.split('.').length !== 3) {
    return { status: 'failed', reason: 'sign did not return a compact JWS' };
  }

  let verified;
  try {
    verified = await verify(token);
  } catch (err) {
    return { status: 'failed', reason: `the signed token does not verify: ${err.message}` };
  }
  if (!isDeepStrictEqual(verified, claims)) {
    return { status: 'failed', reason: 'verify did not yield the input claims' };
  }
  if (!(await rejects(verify, flipSignatureBit(token)))) {
    return { status: 'failed', reason: 'a token with a flipped signature bit was accepted' };
  }
  if (!(await rejects(verify, unsignedToken(token)))) {
    return { status: 'failed', reason: 'an alg:none token was accepted' };
  }
  if (!(await rejects(verify, otherAlgorithmToken(token, alg, verificationKeyBytes)))) {
    return { status: 'failed', reason: 'a token naming another algorithm was accepted' };
  }
  if (lib.decoder === null) return { status: 'ok', token }; // no decode: its cells are unsupported
  let decoded;
  try {
    decoded = lib.decoder(token);
  } catch (err) {
    return { status: 'failed', reason: `decode threw: ${err.message}` };
  }
  if (!isDeepStrictEqual(decoded, claims)) {
    return { status: 'failed', reason: 'decode did not yield the input claims' };
  }
  return { status: 'ok', token };
}

/**
 * Suite jwt on records: signs every record once (the token pool) and checks that each
 * token verifies with the pinned algorithm and yields exactly its record's claims.
 * Returns {status: 'ok', tokens} | {status: 'failed', reason}.
 */
async function signAndCheckPool({ alg, signingKey, verificationKey, records }) {
  const lib = library();
  const verify = lib.verifier(alg, verificationKey);
  const tokens = [];
  for (const [i, { claims }] of records.entries()) {
    const at = `record ${i + 1}`;
    let token;
    try {
      token = await lib.signer(alg, signingKey, claims)(claims);
    } catch (err) {
      return { status: 'failed', reason: `sign of ${at} threw: ${err.message}` };
    }
    let verified;
    try {
      verified = await verify(token);
    } catch (err) {
      return { status: 'failed', reason: `the token of ${at} does not verify: ${err.message}` };
    }
    if (!isDeepStrictEqual(verified, claims)) {
      return { status: 'failed', reason: `verify of ${at}'s token did not yield its claims` };
    }
    tokens.push(token);
  }
  return { status: 'ok', tokens };
}

module.exports = {
  checkAlgorithm, signAndCheckPool, flipSignatureBit, unsignedToken, otherAlgorithmToken,
};
