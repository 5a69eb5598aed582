#!/usr/bin/env node
'use strict';
// jwtbench's Node.js driver (jsonwebtoken). Start it through ./run, which puts the pinned
// node_modules on NODE_PATH. Contract: workflow/scripts/README.md; notes: ./README.md.

const fs = require('node:fs');

// A bug, not an input problem: keep it apart from the contract's exit statuses 0-3.
function internalError(err) {
  fs.writeSync(2, `internal error: ${err && err.stack ? err.stack : err}\n`);
  return 70;
}

Promise.resolve()
  .then(() => require('./cli').main(process.argv.slice(2)))
  .then((status) => { process.exitCode = status; }, (err) => { process.exitCode = internalError(err); });
