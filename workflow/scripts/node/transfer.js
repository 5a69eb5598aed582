'use strict';
// Suite transfer (workflow/scripts/README.md, "Suite `transfer`"): the express server in this
// process, started and checked before the hello, and the node:http client of a trial.

const http = require('node:http');
const { once } = require('node:events');
const { requireDependency } = require('./deps');
const { jwt, signOptions, verifyToken } = require('./jwt_ops');
const { flipSignatureBit, unsignedToken } = require('./checks');

const express = requireDependency('express');

const HOST = '127.0.0.1';
const JWT_TYPE = 'application/jwt';
const now = () => process.hrtime.bigint();

/** Room for the largest request: the token is about 4/3 of the body, plus header and signature. */
const bodyLimit = (inputBytes) => 2 * inputBytes + (1 << 20);

/** The express app: POST / of an application/jwt body, verified, answered with a signed receipt (else 401). */
function receiptApp(cell) {
  const { algorithm, signingKey, verificationKey } = cell;
  const app = express();
  app.post('/', express.raw({ type: JWT_TYPE, limit: bodyLimit(cell.inputBytes) }), (req, res) => {
    if (!Buffer.isBuffer(req.body)) {
      res.status(415).end();
      return;
    }
    const token = req.body.toString('latin1'); // a compact JWS is ASCII
    let claims;
    const t0 = now();
    try {
      claims = verifyToken(token, algorithm, verificationKey);
    } catch (_) {
      res.status(401).end();
      return;
    }
    const verifyNs = now() - t0;
    const receipt = {
      dataset: claims.dataset,
      records: Array.isArray(claims.records) ? claims.records.length : null,
      received_bytes: req.body.length,
      verify_ns: Number(verifyNs),
    };
    res.status(200).type(JWT_TYPE).send(Buffer.from(jwt.sign(receipt, signingKey, signOptions(algorithm, receipt))));
  });
  // Body-parser errors (too large, aborted) and anything thrown: a status and no body.
  app.use((err, req, res, next) => { // eslint-disable-line no-unused-vars
    process.stderr.write(`server: ${err.message}\n`);
    res.status(err.status || 500).end();
  });
  return app;
}

async function startServer(app, timeoutMs) {
  const server = http.createServer(app);
  // Idle keep-alive connections between trials must outlive the longest gap (a client sign).
  server.keepAliveTimeout = timeoutMs;
  server.listen(0, HOST);
  await once(server, 'listening');
  return server;
}

async function stopServer(server, agent) {
  agent.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** POSTs `token`; resolves to {status, type, body}; rejects after timeoutMs. */
function post(target, token, timeoutMs) {
  return new Promise((resolve, reject) => {
    const req = http.request({
      ...target,
      method: 'POST',
      path: '/',
      // token.length is its size in bytes: a compact JWS is ASCII.
      headers: { 'Content-Type': JWT_TYPE, 'Content-Length': token.length, Accept: JWT_TYPE },
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`no response within request_timeout_seconds (${timeoutMs / 1000} s)`)),
      timeoutMs);
    const fail = (err) => { clearTimeout(timer); reject(err); };
    req.on('error', fail);
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode, type: res.headers['content-type'] || '',
          body: Buffer.concat(chunks).toString('latin1'),
        });
      });
    });
    req.end(token);
  });
}

/** The receipt's claims, or an Error saying what is wrong with the answer. */
function checkReceipt(res, cell, sentBytes) {
  if (res.status !== 200) throw new Error(`the server answered ${res.status}`);
  if (res.type.split(';')[0].trim() !== JWT_TYPE) throw new Error(`the receipt's Content-Type is "${res.type}"`);
  let receipt;
  try {
    receipt = verifyToken(res.body, cell.algorithm, cell.verificationKey);
  } catch (err) {
    throw new Error(`the receipt does not verify: ${err.message}`);
  }
  if (receipt.records !== cell.claims.records.length) {
    throw new Error(`the receipt says ${receipt.records} records, the body has ${cell.claims.records.length}`);
  }
  if (receipt.received_bytes !== sentBytes) {
    throw new Error(`the receipt says ${receipt.received_bytes} bytes received, ${sentBytes} were sent`);
  }
  if (!Number.isSafeInteger(receipt.verify_ns) || receipt.verify_ns < 0) {
    throw new Error('the receipt has no verify_ns');
  }
  return receipt;
}

/** The body's token with a flipped signature bit, and the alg:none token, must get 401. */
async function checkServer(target, token, timeoutMs) {
  const forged = [['a flipped signature bit', flipSignatureBit(token)], ['alg none', unsignedToken(token)]];
  for (const [what, bad] of forged) {
    const res = await post(target, bad, timeoutMs);
    if (res.status !== 401) throw new Error(`server check: the token with ${what} got ${res.status}, not 401`);
  }
}

/** One trial, timed from the client's sign to the receipt checked: {totalNs, signNs, verifyNs (the server's), tokenBytes}. */
async function trial(cell, options, target, timeoutMs) {
  const t0 = now();
  const token = jwt.sign(cell.claims, cell.signingKey, options);
  const t1 = now();
  const res = await post(target, token, timeoutMs);
  const receipt = checkReceipt(res, cell, token.length);
  const t2 = now();
  return { totalNs: t2 - t0, signNs: t1 - t0, verifyNs: BigInt(receipt.verify_ns), tokenBytes: token.length };
}

/**
 * A checked cell's server, started and checked with the checks' token; `run`: n trials (one
 * also answers output_bytes and parts), a failed one throws; `close` stops the server.
 */
async function transferRun(cell, settings, token) {
  if (typeof cell.claims.dataset !== 'string' || !Array.isArray(cell.claims.records)) {
    throw new Error(`${cell.input_file} is not a transfer body ({"dataset": NAME, "records": [...]})`);
  }
  const timeoutMs = settings.request_timeout_seconds * 1000;
  const options = signOptions(cell.algorithm, cell.claims);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const server = await startServer(receiptApp(cell), timeoutMs);
  const target = { host: HOST, port: server.address().port, agent };
  const close = () => stopServer(server, agent);
  try {
    await checkServer(target, token, timeoutMs);
  } catch (err) {
    await close();
    throw err;
  }
  const run = async (n) => {
    let elapsed = 0n;
    let r;
    for (let k = 0; k < n; k++) {
      r = await trial(cell, options, target, timeoutMs);
      elapsed += r.totalNs;
    }
    if (n > 1) return { elapsed_ns: Number(elapsed) };
    return { elapsed_ns: Number(elapsed), output_bytes: r.tokenBytes, parts: { sign: Number(r.signNs), verify: Number(r.verifyNs) } };
  };
  return { run, close };
}

module.exports = { transferRun };
