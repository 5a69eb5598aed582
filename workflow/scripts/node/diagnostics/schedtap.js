'use strict';
// Diagnostic preload (`node -r .../schedtap.js driver.js bench ...`), never loaded by the
// pipeline: after each raw-sample row the driver writes (outside its timed batches), one line
// goes to the file $JWTBENCH_SCHEDTAP with the main thread's on-CPU and run-queue wait
// nanoseconds (/proc/<pid>/task/<pid>/schedstat), the other threads' on-CPU nanoseconds (V8's
// and libuv's workers), the new space's size the old space's used bytes, and the
// steal ticks (/proc/stat: time the hypervisor gave the CPU to another guest) of the CPU the
// main thread last ran on. The header's
// write gives the first line, so line i+1 minus line i covers row i. rounds.js reads it.
const fs = require('fs');
const v8 = require('v8');

const tapFile = process.env.JWTBENCH_SCHEDTAP;
if (!tapFile) throw new Error('schedtap.js: set JWTBENCH_SCHEDTAP to the file to write');
const tap = fs.openSync(tapFile, 'w');
const main = String(process.pid);
const { openSync, writeSync } = fs;
let csv = null;

function note() {
  const own = fs.readFileSync(`/proc/self/task/${main}/schedstat`, 'utf8').split(' ');
  let workers = 0;
  for (const tid of fs.readdirSync('/proc/self/task')) {
    if (tid === main) continue;
    try {
      workers += Number(fs.readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch (error) { /* the thread ended meanwhile */ }
  }
  const cpu = fs.readFileSync(`/proc/self/task/${main}/stat`, 'utf8').split(') ')[1].split(' ')[36];
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n').find((l) => l.startsWith(`cpu${cpu} `));
  const steal = line ? line.split(/ +/)[8] : 0;
  const spaces = v8.getHeapSpaceStatistics();
  const space = (name) => spaces.find((entry) => entry.space_name === name);
  writeSync.call(fs, tap, `${own[0]},${own[1]},${workers},${space('new_space').space_size},${space('old_space').space_used_size},${steal}\n`);
}

fs.openSync = function openSyncTapped(path, flags, ...rest) {
  const fd = openSync.call(fs, path, flags, ...rest);
  if (csv === null && flags === 'w' && typeof path === 'string' && path.endsWith('.csv')) {
    csv = fd;
  }
  return fd;
};
fs.writeSync = function writeSyncTapped(fd, ...args) {
  const written = writeSync.call(fs, fd, ...args);
  if (fd === csv) note();
  return written;
};
