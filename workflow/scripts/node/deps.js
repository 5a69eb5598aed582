'use strict';
// The pinned node_modules (NODE_PATH from `run`; under plain `node`, the shim's default place)
// and what was loaded from them.

const fs = require('node:fs');
const path = require('node:path');

const REPO = path.resolve(__dirname, '..', '..', '..');
const FALLBACK_MODULES = process.env.JWTBENCH_NODE_MODULES ||
  path.join(process.env.JWTBENCH_ENVS || path.join(REPO, '.envs'), 'node', 'node_modules');

class MissingDependency extends Error {}

/** Absolute path of a dependency's entry point (NODE_PATH first, then the fallback). */
function resolveDependency(name) {
  try {
    return require.resolve(name);
  } catch (err) {
    if (err.code !== 'MODULE_NOT_FOUND') throw err;
  }
  try {
    return require.resolve(name, { paths: [FALLBACK_MODULES] });
  } catch (err) {
    if (err.code !== 'MODULE_NOT_FOUND') throw err;
    throw new MissingDependency(
      `cannot find the node package "${name}" (NODE_PATH=${process.env.NODE_PATH || ''}, ` +
      `fallback ${FALLBACK_MODULES}); install it with: ${path.join(REPO, 'envs', 'node', 'install')} ` +
      `${path.join(REPO, '.envs', 'node')}`);
  }
}

function requireDependency(name) {
  return require(resolveDependency(name));
}

/** Nearest package.json at or above `file` that names a package: {name, version, dir}. */
function owningPackage(file) {
  let dir = path.dirname(file);
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate)) {
      const meta = JSON.parse(fs.readFileSync(candidate, 'utf8'));
      if (meta.name && meta.version) return { name: meta.name, version: meta.version, dir };
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** Version of a dependency, read from its own package.json at run time. */
function dependencyVersion(name) {
  const pkg = owningPackage(resolveDependency(name));
  if (!pkg || pkg.name !== name) throw new MissingDependency(`no package.json found for "${name}"`);
  return pkg.version;
}

/** Every package loaded in this process (require.cache): {name: version}, "v1, v2" for two versions. */
function loadedPackages() {
  const seen = new Map();
  for (const file of Object.keys(require.cache)) {
    if (!file.includes(`${path.sep}node_modules${path.sep}`)) continue;
    const pkg = owningPackage(file);
    if (!pkg) continue;
    if (!seen.has(pkg.name)) seen.set(pkg.name, new Set());
    seen.get(pkg.name).add(pkg.version);
  }
  const out = {};
  for (const name of [...seen.keys()].sort()) out[name] = [...seen.get(name)].sort().join(', ');
  return out;
}

module.exports = {
  MissingDependency, resolveDependency, requireDependency, dependencyVersion, loadedPackages,
};
