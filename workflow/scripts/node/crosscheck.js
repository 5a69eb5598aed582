'use strict';
// The native harness of a cross-check spec (workflow/scripts/README.md, "The cross-check"):
// mitata times the very call a batch of the cell makes, with its own loop, clock and statistic.

const { pathToFileURL } = require('node:url');
const { dependencyVersion, resolveDependency } = require('./deps');

// mitata unrolls its batch loop by this many calls (its default); a batch is a multiple of it.
const MITATA_UNROLL = 4;

/** mitata (an ES module: import() ignores NODE_PATH, so it is located the CommonJS way), the hello's `harness`. */
async function loadMitata() {
  const mitata = await import(pathToFileURL(resolveDependency('mitata')).href);
  return { mitata, harness: { name: 'mitata', version: dependencyVersion('mitata') } };
}

/**
 * A native request: mitata's measure() of the call for about `seconds`, its p50 per call.
 * Each sample is a batch of the `n` the conductor last asked of the cell (rounded to mitata's
 * unroll), so that both medians cover windows of one length (docs/decisions.md, "Node's young
 * generation"). The call is passed as it is: it ends in node:crypto, which no compiler drops
 * (do_not_optimize would time a wrapper the driver's loop lacks).
 */
async function native(mitata, call, seconds, n) {
  const batching = n === undefined ? {} : {
    batch_unroll: MITATA_UNROLL, batch_samples: Math.max(MITATA_UNROLL, Math.round(n / MITATA_UNROLL) * MITATA_UNROLL),
    batch_threshold: Infinity, warmup_threshold: Infinity,
  };
  const stats = await mitata.measure(call, { min_cpu_time: seconds * 1e9, min_samples: 3, ...batching });
  return { ns_per_op: stats.p50, samples: stats.samples.length };
}

module.exports = { loadMitata, native };
