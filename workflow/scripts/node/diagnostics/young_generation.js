'use strict';
// Entry for the shim (`JWTBENCH_ENTRY=diagnostics/young_generation.js run`), never used by the
// pipeline: allocates garbage of which a part survives a few collections (4 million small
// objects, every fourth kept for the next 80,000) and prints one JSON line: node's flags
// (execArgv) and the new space's largest size seen. Under the shim's --max-semi-space-size=1 it stays at 2 MiB (two
// 1 MiB semi-spaces); left to itself V8 grows it to 32 MiB here (two of 16 MiB) within 2 s.
const v8 = require('v8');

const newSpace = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size;
let largest = newSpace();
let sink = 0;
const kept = new Array(20000);
for (let batch = 0; batch < 400; batch += 1) {
  for (let i = 0; i < 10000; i += 1) {
    const garbage = { claims: `{"sub":"${i}","batch":${batch}}`, parts: [i, batch, 'x'.repeat(32)] };
    sink += garbage.parts.length;
    if (i % 4 === 0) kept[(batch * 2500 + i / 4) % kept.length] = garbage; // some survive a while
  }
  largest = Math.max(largest, newSpace());
}
process.stdout.write(`${JSON.stringify({ execArgv: process.execArgv, largest_new_space_bytes: largest, sink })}\n`);
