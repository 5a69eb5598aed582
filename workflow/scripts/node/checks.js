'use strict';
// The checks before timing (workflow/scripts/README.md, "The checks before timing"), once per
// algorithm and key, through the library's adapter; the forged tokens are built here with
// node:crypto, independently of the library under test.

const crypto = require('node:crypto');
const { isDeepStrictEqual } = require('node:util');
const { library } = require('./library');

const b64urlJson = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The token with the lowest bit of its first signature byte flipped, re-encoded. */
function flipSignatureBit(token) {
  const [header, payload, signature] = token.split('.');
  const raw = Buffer.from(signature, 'base64url');
  raw[0] ^= 1;
  return `${header}.${payload}.${raw.toString('base64url')}`;
}

/** Same payload, header {"alg":"none","typ":"JWT"}, empty signature. */
const unsignedToken = (token) => `${b64urlJson({ alg: 'none', typ: 'JWT' })}.${token.split('.')[1]}.`;

/**
 * Same payload, validly HMAC'd with `keyBytes` under another algorithm: for HS*, the same
 * secret under HS384 (HS256) or HS256; otherwise HS256 keyed with the public-key PEM's bytes.
 */
function otherAlgorithmToken(token, alg, keyBytes) {
  const hsAlg = alg === 'HS256' ? 'HS384' : 'HS256';
  const signingInput = `${b64urlJson({ alg: hsAlg, typ: 'JWT' })}.${token.split('.')[1]}`;
  return `${signingInput}.${crypto.createHmac(`sha${hsAlg.slice(2)}`, keyBytes).update(signingInput).digest('base64url')}`;
}

async function rejects(verify, token) {
  try {
    await verify(token);
    return false;
  } catch (_) {
    return true;
  }
}

/** The token verifies and yields exactly `claims`: null, or what is wrong (`what` names the token). */
async function verifiesTo(verify, token, claims, what) {
  let verified;
  try {
    verified = await verify(token);
  } catch (err) {
    return `${what} does not verify: ${err.message}`;
  }
  return isDeepStrictEqual(verified, claims) ? null : `verify of ${what} did not yield its claims`;
}

/**
 * Every check for one (algorithm, key pair, claims); verificationKeyBytes: the secret's bytes
 * (HS*) or the public-key PEM's. {status: 'ok', token} | {status: 'unsupported' | 'failed', reason}.
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
  const problem = await verifiesTo(verify, token, claims, 'the signed token');
  if (problem) return { status: 'failed', reason: problem };
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
 * Suite jwt on records: every record signed once (the token pool), each token verifying with
 * the pinned algorithm to exactly its record's claims. {status: 'ok', tokens} | {status: 'failed', reason}.
 */
async function signAndCheckPool({ alg, signingKey, verificationKey, records }) {
  const lib = library();
  const verify = lib.verifier(alg, verificationKey);
  const tokens = [];
  for (const [i, { claims }] of records.entries()) {
    let token;
    try {
      token = await lib.signer(alg, signingKey, claims)(claims);
    } catch (err) {
      return { status: 'failed', reason: `sign of record ${i + 1} threw: ${err.message}` };
    }
    const problem = await verifiesTo(verify, token, claims, `the token of record ${i + 1}`);
    if (problem) return { status: 'failed', reason: problem };
    tokens.push(token);
  }
  return { status: 'ok', tokens };
}

module.exports = { checkAlgorithm, signAndCheckPool, flipSignatureBit, unsignedToken };
