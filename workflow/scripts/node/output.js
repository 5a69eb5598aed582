'use strict';
// The raw-sample CSV (workflow/schemas/raw_samples.schema.yaml) and progress on stderr.

const fs = require('node:fs');
const { InputError } = require('./inputs');
const { LIBRARY } = require('./library');

// The `language` column: the language, whichever of its libraries the driver times (the
// library is the `implementation`).
const LANGUAGE = 'node';
// The implementation columns' default, the library under test; hash, primitive and keygen
// cells name their own.
const IMPLEMENTATION = LIBRARY;
const CSV_COLUMNS = [
  'language', 'implementation', 'implementation_version', 'suite', 'operation', 'algorithm',
  'key_bits', 'input', 'input_bytes', 'sample', 'iterations', 'elapsed_ns', 'output_bytes',
  'status',
];
// A transfer cell measures three operations, each with its own rows.
const TRANSFER_OPERATIONS = ['request-response', 'sign', 'verify'];

function operationsOf(cell) {
  return cell.suite === 'transfer' ? TRANSFER_OPERATIONS : [cell.operation];
}

function csvField(value) {
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * `fields` may override the cell's operation and input_bytes (tokensize, transfer); a cell
 * with `implementation` and `implementationVersion` (hash) has them in its rows.
 */
function csvRow(cell, version, fields) {
  const { sample, iterations, elapsedNs, outputBytes, status } = fields;
  return [
    LANGUAGE, cell.implementation ?? IMPLEMENTATION, cell.implementationVersion ?? version,
    cell.suite, fields.operation ?? cell.operation,
    cell.algorithm, cell.key_bits, cell.input, fields.inputBytes ?? cell.inputBytes, sample,
    iterations, elapsedNs, outputBytes, status,
  ].map(csvField).join(',') + '\n';
}

/**
 * Opens --out and writes the header; `version` is the library's, for the rows of the
 * cells that do not name their implementation. Every row goes straight to the file (no buffering in
 * this process), so a crash loses nothing already written.
 */
function openCsv(outFile, version) {
  let fd;
  try {
    fd = fs.openSync(outFile, 'w');
  } catch (err) {
    throw new InputError(`cannot write --out ${outFile}: ${err.code || err.message}`);
  }
  fs.writeSync(fd, `${CSV_COLUMNS.join(',')}\n`);
  const writeRow = (cell, fields) => fs.writeSync(fd, csvRow(cell, version, fields));
  return {
    writeRow,
    /** The row of a cell that was not timed (one per operation), sample 0. */
    writeUntimed(cell, status, elapsedNs = 0n) {
      for (const operation of operationsOf(cell)) {
        writeRow(cell, { operation, sample: 0, iterations: 0, elapsedNs, outputBytes: 0, status });
      }
    },
    close: () => fs.closeSync(fd),
  };
}

function stderr(line) {
  fs.writeSync(2, `${line}\n`);
}

function label(cell) {
  if (cell.suite === 'hash') return `${cell.algorithm} ${cell.input}`;
  if (cell.suite === 'primitive' || cell.suite === 'keygen') {
    return `${cell.algorithm}${cell.key_bits && !cell.algorithm.endsWith(`-${cell.key_bits}`) ? `-${cell.key_bits}` : ''} ${cell.input}`;
  }
  return /^(RS|PS)/.test(cell.algorithm) ? `${cell.algorithm}-${cell.key_bits}` : cell.algorithm;
}

/** The median of numbers (progress lines, warm-up until steady). */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const grouped = (n) => Math.round(n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const ms = (ns) => (Number(ns) / 1e6).toFixed(1);

module.exports = {
  LANGUAGE, IMPLEMENTATION, TRANSFER_OPERATIONS, openCsv, stderr, label, grouped, ms, median,
};
