'use strict';
// Suite transfer (workflow/scripts/README.md): a whole dataset signed into one token and
// posted to an express server in this process, which verifies it and answers with a
// signed receipt. Per cell: server, server check, warm-up trials, timed trials, three rows
// per timed trial (request-response, the client's sign, the server's verify).

const http = require('node:http');
const { once } = require('node:events');
const { requireDependency } = require('./deps');
const { jwt, signOptions, verifyToken } = require('./jwt_ops');
const { flipSignatureBit, unsignedToken } = require('./checks');
const { stderr, ms, grouped, median } = require('./output');

const express = requireDependency('express');

const HOST = '127.0.0.1';
const JWT_TYPE = 'application/jwt';
const now = () => process.hrtime.bigint();

// ---------------------------------------------------------------------------------------
// Server

/** Room for the largest request: the token is about 4/3 of the body, plus header and signature. */
const bodyLimit = (inputBytes) => 2 * inputBytes + (1 << 20);

/**
 * The express app: POST / with an application/jwt body is verified with the cell's
 * algorithm pinned and answered with a signed receipt, or 401 when it does not verify.
 */
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
    stderr(`server: ${err.message}`);
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

// ---------------------------------------------------------------------------------------
// Client

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

/**
 * One trial, timed from before the client's sign to after the receipt is checked.
 * Returns {totalNs, signNs, verifyNs (the server's, from the receipt), tokenBytes}.
 */
async function trial(cell, options, target, timeoutMs) {
  const t0 = now();
  const token = jwt.sign(cell.claims, cell.signingKey, options);
  const t1 = now();
  const res = await post(target, token, timeoutMs);
  const receipt = checkReceipt(res, cell, token.length);
  const t2 = now();
  return { totalNs: t2 - t0, signNs: t1 - t0, verifyNs: BigInt(receipt.verify_ns), tokenBytes: token.length };
}

// ---------------------------------------------------------------------------------------

/**
 * Runs one checked cell; resolves to {rows, timedOut, spentNs}, rejects if anything
 * fails. No trial starts once max_cell_seconds (counted from the first warm-up trial) is
 * used.
 */
async function runCell(cell, settings, run) {
  const { trials, warmup_trials: warmups, request_timeout_seconds: timeoutSeconds } = settings;
  const timeoutMs = timeoutSeconds * 1000;
  const limitNs = BigInt(Math.round(run.timing.max_cell_seconds * 1e9));
  const head = run.head(cell);
  let start;
  const options = signOptions(cell.algorithm, cell.claims);
  const rows = [];
  const result = (timedOut) => ({ rows, timedOut, spentNs: now() - start });

  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const server = await startServer(receiptApp(cell), timeoutMs);
  const target = { host: HOST, port: server.address().port, agent };
  try {
    await checkServer(target, jwt.sign(cell.claims, cell.signingKey, options), timeoutMs);
    start = now();
    for (let w = 1; w <= warmups; w++) {
      if (now() - start >= limitNs) return result(true);
      const r = await trial(cell, options, target, timeoutMs);
      stderr(`${head}: warm-up trial ${w}/${warmups}: ${ms(r.totalNs)} ms`);
    }
    for (let k = 1; k <= trials; k++) {
      if (now() - start >= limitNs) return result(true);
      const r = await trial(cell, options, target, timeoutMs);
      const common = { sample: k, iterations: 1, outputBytes: r.tokenBytes };
      rows.push(
        { ...common, operation: 'request-response', elapsedNs: r.totalNs },
        { ...common, operation: 'sign', elapsedNs: r.signNs },
        { ...common, operation: 'verify', elapsedNs: r.verifyNs });
      stderr(`${head}: trial ${k}/${trials}: ${ms(r.totalNs)} ms ` +
        `(sign ${ms(r.signNs)} ms, server verify ${ms(r.verifyNs)} ms, token ${grouped(r.tokenBytes)} bytes)`);
    }
    return result(false);
  } finally {
    await stopServer(server, agent);
  }
}

/** Runs every checked cell in spec order; a cell's rows are written when it ends. */
async function runTransfer(passed, settings, run) {
  for (const { cell } of passed) {
    let result;
    try {
      result = await runCell(cell, settings, run);
    } catch (err) {
      run.finish(cell, 'failed', `failed (${err.message})`);
      continue;
    }
    const status = result.timedOut ? 'timeout' : 'ok';
    if (result.rows.length === 0) {
      run.out.writeUntimed(cell, status, result.spentNs);
      run.finish(cell, status, `timeout after ${ms(result.spentNs)} ms, no trial timed`, false);
      continue;
    }
    for (const row of result.rows) run.out.writeRow(cell, { ...row, status });
    const totals = result.rows.filter((r) => r.operation === 'request-response').map((r) => Number(r.elapsedNs));
    run.finish(cell, status, `${totals.length} trials, median request-response ${ms(median(totals))} ms` +
      `${result.timedOut ? ' (timeout: max_cell_seconds ran out)' : ''}`, false);
  }
}

module.exports = { runTransfer };
