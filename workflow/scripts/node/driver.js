#!/usr/bin/env node
'use strict';
// jwtbench's Node.js driver (jsonwebtoken). Start it through ./run, which puts the pinned
// node_modules on NODE_PATH. Contract: workflow/scripts/README.md; notes: ./README.md.

const fs = require('node:fs');

let status;
try {
  status = require('./cli').main(process.argv.slice(2));
} catch (err) {
  // A bug, not an input problem: keep it apart from the contract's exit statuses 0-3.
  fs.writeSync(2, `internal error: ${err && err.stack ? err.stack : err}\n`);
  status = 70;
}
process.exitCode = status;
